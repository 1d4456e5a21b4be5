package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// fleet_glance answers the project's glance (read-only), and the glance
// resource reads the same JSON.
func TestFleetGlanceToolAndResource(t *testing.T) {
	st, err := db.Open(filepath.Join(t.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "glance"}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanApply{Plan: model.Plan{Summary: "p", Features: []model.Feature{{ID: "a", Title: "A"}}}}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	cs := inProcess(t, st)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := false
	for _, tl := range tools.Tools {
		if tl.Name == "fleet_glance" {
			readOnly = tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		}
	}
	if !readOnly {
		t.Fatal("fleet_glance is not listed as a read-only tool")
	}
	text, isErr := rawCall(t, cs, "fleet_glance", nil)
	var g ops.FleetGlance
	if err := json.Unmarshal([]byte(text), &g); err != nil || isErr {
		t.Fatalf("fleet_glance: %s (%v)", text, err)
	}
	s, _ := st.Active()
	if !g.OK || g.API != ops.FleetAPI || g.Seq != s.Seq || g.Goal != "glance" || g.Total != 1 || g.Root != filepath.Dir(st.Dir()) ||
		len(g.Waits) != 1 || g.Waits[0].Kind != ops.FleetWaitPlan || g.Waits[0].Label != "plan approval" {
		t.Fatalf("fleet_glance: %s", text)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ops.FleetGlanceURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != text || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("the resource reads %+v, the tool %s", res.Contents, text)
	}
}
