package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/model"
)

// The /flow-* commands are prompts: listed with their arguments, and each
// one's message says what to do and carries the session's HUD.
func TestFlowPrompts(t *testing.T) {
	project := t.TempDir()
	cs := connect(t, project, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var names []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
		if p.Name == "flow-plan" && (len(p.Arguments) != 1 || p.Arguments[0].Name != "goal" || !p.Arguments[0].Required) {
			t.Errorf("flow-plan arguments %+v", p.Arguments)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"flow-auto", "flow-plan", "flow-reset", "flow-run", "flow-status"}) {
		t.Fatalf("prompts = %v", names)
	}
	mustOK(t, cs, "flow_plan_start", map[string]any{"goal": "prompted goal"})
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "flow-run", Arguments: map[string]string{"feature": "token-store"}})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("flow-run: %+v %v", res, err)
	}
	text := res.Messages[0].Content.(*sdk.TextContent).Text
	for _, want := range []string{`flow_run_start with feature_id "token-store"`, "run tool and feature_id", "flowdeck (seq 1, ", "): prompted goal\n"} {
		if !strings.Contains(text, want) {
			t.Fatalf("flow-run lacks %q:\n%s", want, text)
		}
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "flow-plan"}); err == nil {
		t.Fatal("flow-plan without a goal was accepted")
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "flow-reset", Arguments: map[string]string{"target": "everything"}}); err == nil {
		t.Fatal("flow-reset everything was accepted")
	}
}

// After an action that changes the docs, the client hears
// notifications/resources/list_changed and lists the feature docs; a
// listing made before the plan does not have them.
func TestResourcesListChanged(t *testing.T) {
	project := t.TempDir()
	changed := make(chan struct{}, 16)
	cs := connect(t, project, &sdk.ClientOptions{ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	uris := func() []string {
		var out []string
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.URI)
		}
		slices.Sort(out)
		return out
	}
	if got := uris(); len(got) != 3 { // the fleet's glance, the index and the session's diff
		t.Fatalf("before the plan: %v", got)
	}
	drain(changed)
	mustOK(t, cs, "flow_plan_start", map[string]any{"goal": "announced"})
	waitNotified(t, ctx, changed, "flow_plan_start")
	mustOK(t, cs, "flow_plan_apply", map[string]any{"plan": map[string]any{"features": []any{
		map[string]any{"id": "alpha", "title": "A"}, map[string]any{"id": "beta", "title": "B"}}}})
	waitNotified(t, ctx, changed, "flow_plan_apply")
	want := []string{"flowdeck://fleet/glance", "flowdeck://session/diff", "flowdeck://session/features/alpha.md", "flowdeck://session/features/beta.md", "flowdeck://session/index.md"}
	if got := uris(); !slices.Equal(got, want) {
		t.Fatalf("after the plan: %v", got)
	}
	// A read changes nothing and announces nothing; the next action does.
	drain(changed)
	mustOK(t, cs, "flow_status", nil)
	mustOK(t, cs, "flow_note", map[string]any{"text": "n"})
	waitNotified(t, ctx, changed, "flow_note")
}

func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

func waitNotified(t *testing.T, ctx context.Context, c chan struct{}, after string) {
	t.Helper()
	select {
	case <-c:
	case <-ctx.Done():
		t.Fatalf("no resources/list_changed after %s", after)
	}
}

// expect_seq guards the actions as --expect-seq does: a decision made on a
// state that changed since is refused with stale_decision.
func TestExpectSeq(t *testing.T) {
	cs := connect(t, t.TempDir(), nil)
	mustOK(t, cs, "flow_plan_start", map[string]any{"goal": "guarded"})
	mustOK(t, cs, "flow_plan_apply", map[string]any{"plan": map[string]any{"features": []any{map[string]any{"id": "alpha"}}}})
	out, isErr := call(t, cs, "flow_plan_approve", map[string]any{"expect_seq": 1})
	if e, _ := out["error"].(map[string]any); !isErr || e["code"] != model.CodeStaleDecision {
		t.Fatalf("stale approve: %v", out)
	}
	mustOK(t, cs, "flow_plan_approve", map[string]any{"expect_seq": 2})
}
