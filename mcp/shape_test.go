package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// inProcess connects a client to a server on st.
func inProcess(t *testing.T, st *db.Store) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(project.FromStore(st, project.Options{Warn: io.Discard}), Options{}).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "shape"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rawCall returns a tool's text result as sent, and whether it is an error.
func rawCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// fortyFeatures builds a session of 40 features with realistic text, the
// first 20 completed with evidence and reviews, the 21st active.
func fortyFeatures(t *testing.T, st *db.Store) {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	do := func(a model.Action) {
		t.Helper()
		now = now.Add(time.Second)
		if _, err := st.Do(a, "agent", now); err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
	}
	do(model.PlanStart{Goal: "Rebuild the billing pipeline with idempotent retries and an audit trail"})
	var feats []model.Feature
	for i := range 40 {
		f := model.Feature{ID: fmt.Sprintf("billing-step-%02d", i), Title: fmt.Sprintf("Billing step %d: make the charge idempotent", i),
			Summary:      "Store an idempotency key per charge, retry with backoff, and write an audit record for every attempt.",
			Files:        []string{fmt.Sprintf("internal/billing/step%02d.go", i), fmt.Sprintf("internal/billing/step%02d_test.go", i)},
			Verification: []string{fmt.Sprintf("go test ./internal/billing/ -run Step%02d", i)}}
		if i > 0 {
			f.DependsOn = []string{fmt.Sprintf("billing-step-%02d", i-1)}
		}
		feats = append(feats, f)
	}
	do(model.PlanApply{Plan: model.Plan{Summary: "Idempotent billing", Requirements: []string{"no double charge", "audit every attempt"}, Features: feats}})
	do(model.PlanApprove{})
	for i := range 21 {
		id := feats[i].ID
		do(model.RunStart{Feature: id})
		if i == 20 {
			break
		}
		do(model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: feats[i].Verification[0],
			Summary: "14 passed, 0 failed, 1 package, 2.1s", Source: model.SourceObserved, RunID: "20260102-030405.000-abcdef"})
		do(model.ReviewFeature{Feature: id, Decision: model.ReviewApproved, Findings: []string{"keys are checked before the charge", "tests cover the retry"}})
		do(model.AddNote{Text: "finished " + id + " after checking the retry path against the sandbox"})
		do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted, Summary: "idempotency key stored; retries are safe"})
	}
}

// An action's result on a 40-feature session stays small; flow_status too;
// full: true is the whole session.
func TestCompactResultsOnFortyFeatures(t *testing.T) {
	st := openStore(t)
	fortyFeatures(t, st)
	cs := inProcess(t, st)
	const active = "billing-step-20"
	sizes := map[string]int{}
	for _, c := range []struct {
		tool  string
		args  map[string]any
		isErr bool
	}{
		{"flow_note", map[string]any{"text": "looking at the retry loop"}, false},
		{"flow_validate", map[string]any{"feature_id": active, "status": "passed", "scope": "targeted", "command": "go test ./internal/billing/", "summary": "15 passed"}, false},
		{"flow_run_complete_feature", map[string]any{"feature_id": active, "outcome": "completed"}, true},
		{"flow_review_record_feature", map[string]any{"feature_id": active, "decision": "needs_fix", "findings": []any{"retry has no jitter"}}, false},
		{"flow_plan_start", map[string]any{"goal": "Rebuild the billing pipeline with idempotent retries and an audit trail"}, false},
	} {
		text, isErr := rawCall(t, cs, c.tool, c.args)
		sizes[c.tool] = len(text)
		if isErr != c.isErr {
			t.Fatalf("%s: isError %v: %s", c.tool, isErr, text)
		}
		if len(text) > 2048 {
			t.Errorf("%s: %d bytes, want ≤ 2048: %s", c.tool, len(text), text)
		}
		var res struct {
			Session map[string]any `json:"session"`
		}
		json.Unmarshal([]byte(text), &res)
		if res.Session["id"] == nil || res.Session["counts"] == nil {
			t.Errorf("%s: no session summary: %s", c.tool, text)
		}
		if c.isErr && !strings.HasPrefix(text, `{"ok":false,"error":{`) {
			t.Errorf("%s: the error is not first: %.200s", c.tool, text)
		}
	}
	status, _ := rawCall(t, cs, "flow_status", nil)
	full, _ := rawCall(t, cs, "flow_status", map[string]any{"full": true})
	sizes["flow_status"], sizes["flow_status full"] = len(status), len(full)
	if len(status) > 12<<10 {
		t.Errorf("flow_status: %d bytes, want ≤ 12 KiB", len(status))
	}
	if !strings.Contains(full, `"validations"`) || len(full) <= len(status) {
		t.Errorf("full: true is not the whole session (%d bytes)", len(full))
	}
	t.Logf("result sizes on a 40-feature session (bytes): %v", sizes)
}

// Every schema violation is refused in flowdeck's one error shape, naming
// the field; a plan sent as a JSON string is parsed.
func TestSchemaViolationsAreInvalidArgument(t *testing.T) {
	st := openStore(t)
	cs := inProcess(t, st)
	if text, isErr := rawCall(t, cs, "flow_plan_start", map[string]any{"goal": "shape"}); isErr {
		t.Fatal(text)
	}
	valid := map[string]any{"feature_id": "a", "status": "passed", "scope": "targeted", "command": "go test"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range valid {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		field      string
	}{
		{"wrong enum", "flow_validate", with("status", "great"), "status"},
		{"missing", "flow_validate", with("command", nil), "command"},
		{"extra", "flow_validate", with("colour", "blue"), "colour"},
		{"wrong type", "flow_validate", with("feature_id", 5), "feature_id"},
		{"list of numbers", "flow_review_record_feature", map[string]any{"feature_id": "a", "decision": "approved", "findings": []any{1}}, "findings"},
		{"plan string not JSON", "flow_plan_apply", map[string]any{"plan": "{oops"}, "plan"},
		{"nested plan field", "flow_plan_apply", map[string]any{"plan": map[string]any{"features": []any{map[string]any{"id": "a", "colour": 1}}}}, "plan"},
		{"bad plan id", "flow_plan_apply", map[string]any{"plan": map[string]any{"features": []any{map[string]any{"id": "A B"}}}}, ""},
	} {
		text, isErr := rawCall(t, cs, c.tool, c.args)
		var res struct {
			OK    *bool        `json:"ok"`
			Error *model.Error `json:"error"`
		}
		if err := json.Unmarshal([]byte(text), &res); err != nil || !isErr || res.OK == nil || *res.OK || res.Error == nil {
			t.Errorf("%s: %s (isError %v)", c.name, text, isErr)
			continue
		}
		if c.field == "" { // a rule's refusal, not the schema's
			continue
		}
		if res.Error.Code != model.CodeInvalidArgument || res.Error.Field != c.field || res.Error.Recovery.Hint == "" ||
			!strings.HasPrefix(text, `{"ok":false,"error":{`) || strings.Contains(text, `"stage":""`) {
			t.Errorf("%s: %s", c.name, text)
		}
	}
	// Clients that send the plan as a string get it parsed.
	plan := `{"summary":"s","features":[{"id":"a","title":"A"},{"id":"b","depends_on":["a"]}]}`
	if text, isErr := rawCall(t, cs, "flow_plan_apply", map[string]any{"plan": plan}); isErr || !strings.Contains(text, `"features":2`) {
		t.Fatalf("plan as a string: %s", text)
	}
}
