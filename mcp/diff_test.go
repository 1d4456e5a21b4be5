package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/gittest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDiffToolAndResource: on a real git repository a reviewer agent gets
// the feature's added lines from the diff tool and the feature resource,
// and the session's from the session resource; a bound keeps whole files
// and lists the rest.
func TestDiffToolAndResource(t *testing.T) {
	dir := gittest.Repo(t, "the diff needs the git program on PATH", map[string]string{"README": "hi\n"})
	cs := connect(t, dir, nil)
	mustOK(t, cs, "flow_plan_start", map[string]any{"goal": "diff"})
	mustOK(t, cs, "flow_plan_apply", map[string]any{"plan": map[string]any{"features": []any{
		map[string]any{"id": "greet", "title": "Greet"}}}})
	mustOK(t, cs, "flow_plan_approve", nil)
	mustOK(t, cs, "flow_run_start", map[string]any{"feature_id": "greet"})
	os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet\n\nfunc Hello() string { return \"hello\" }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("line\n", 3000)), 0o644)

	out := mustOK(t, cs, "diff", map[string]any{"feature_id": "greet", "max_bytes": 2000})
	patch, _ := out["patch"].(string)
	omitted, _ := out["omitted"].([]any)
	if !strings.Contains(patch, "+func Hello() string") || len(omitted) != 1 {
		t.Fatalf("diff tool: patch %q, omitted %v", patch, omitted)
	}
	for _, uri := range []string{"flowdeck://session/diff/greet", "flowdeck://session/diff"} {
		res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		if err != nil || !strings.Contains(res.Contents[0].Text, "+func Hello() string") {
			t.Fatalf("read %s: %v %v", uri, err, res)
		}
	}
	if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "flowdeck://session/diff/..%2Fx"}); err == nil {
		t.Fatal("a diff of no feature was read")
	}
}
