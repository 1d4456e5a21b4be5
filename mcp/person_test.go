package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// codePersonDecision is the refusal's public code (codePersonDecision),
// spelled out: agents branch on it.
const codePersonDecision = "person_decision"

// connectEnv is connect with extra environment for the server process, as
// an agent's MCP client passes its own environment on.
func connectEnv(t *testing.T, project string, env ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cmd := exec.Command(bin, "--dir", project, "mcp")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// refusedPerson asserts that the tool call was refused as the person's
// decision.
func refusedPerson(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) {
	t.Helper()
	out, isErr := call(t, cs, tool, args)
	e, _ := out["error"].(map[string]any)
	if !isErr || out["ok"] != false || e["code"] != codePersonDecision {
		t.Fatalf("%s: want a %s refusal, got %v (isError %v)", tool, codePersonDecision, out, isErr)
	}
	rec, _ := e["recovery"].(map[string]any)
	if hint, _ := rec["hint"].(string); hint == "" {
		t.Fatalf("%s: the refusal says nothing of the cockpit or the shell: %v", tool, e)
	}
}

// personConfig writes a config file (FLOWDECK_CONFIG) with text.
func personConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return "FLOWDECK_CONFIG=" + path
}

// An MCP server started by an agent flowdeck launched ($FLOWDECK_AGENT
// inherited) refuses plan approval, the final review, a flow's decision
// and land with person_decision; its other tools work, as that agent.
func TestMCPRefusesPersonDecisionsToLaunchedAgents(t *testing.T) {
	dir := t.TempDir()
	cfg := personConfig(t, "")
	worker := connectEnv(t, dir, cfg, "FLOWDECK_AGENT=worker-1", "FLOWDECK_FEATURE=a")
	mustOK(t, worker, "flow_plan_start", map[string]any{"goal": "who decides"})
	mustOK(t, worker, "flow_plan_apply", map[string]any{"plan": map[string]any{"summary": "p",
		"features": []any{map[string]any{"id": "a", "title": "A"}}}})
	refusedPerson(t, worker, "flow_plan_approve", nil)
	refusedPerson(t, worker, "flow_review_record_final", map[string]any{"decision": "approved"})
	refusedPerson(t, worker, "flow_land", map[string]any{"force": true})
	refusedPerson(t, worker, "decision_resolve", map[string]any{"decision_id": "d-1", "option": "approved"})

	// The person's own server (no $FLOWDECK_AGENT) relays the approval,
	// recorded as the agent that relayed it.
	chat := connectEnv(t, dir, cfg)
	out := mustOK(t, chat, "flow_plan_approve", nil)
	evs, _ := out["events"].([]any)
	if len(evs) == 0 || evs[0].(map[string]any)["actor"] != "test-agent" {
		t.Fatalf("approval relayed by the person's agent: %v", out)
	}
	// The worker keeps the tools its step needs, and acts under its name.
	out = mustOK(t, worker, "flow_run_start", map[string]any{"feature_id": "a"})
	evs, _ = out["events"].([]any)
	if len(evs) == 0 || evs[0].(map[string]any)["actor"] != "worker-1" {
		t.Fatalf("the worker's claim is not recorded as worker-1: %v", out)
	}
}

// With [session] person_decisions = "cockpit", no agent takes the person's
// decisions over MCP, launched by flowdeck or not; the person's CLI still
// does.
func TestMCPPersonDecisionsCockpitOnly(t *testing.T) {
	dir := t.TempDir()
	cfg := personConfig(t, "[session]\nperson_decisions = \"cockpit\"\n")
	chat := connectEnv(t, dir, cfg)
	mustOK(t, chat, "flow_plan_start", map[string]any{"goal": "cockpit only"})
	mustOK(t, chat, "flow_plan_apply", map[string]any{"plan": map[string]any{"summary": "p",
		"features": []any{map[string]any{"id": "a", "title": "A"}}}})
	refusedPerson(t, chat, "flow_plan_approve", nil)
	refusedPerson(t, chat, "decision_resolve", map[string]any{"decision_id": "d-1", "option": "approved"})

	cmd := exec.Command(bin, "--dir", dir, "--json", "flow", "plan", "approve")
	cmd.Env = append(os.Environ(), cfg)
	raw, err := cmd.Output()
	var res map[string]any
	if err != nil || json.Unmarshal(raw, &res) != nil || res["ok"] != true {
		t.Fatalf("the person's CLI approval: %v %s", err, raw)
	}
}

// connectWith is connectEnv with extra arguments for `flowdeck mcp`.
func connectWith(t *testing.T, project string, env []string, args ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "fleet-client", Version: "1"}, nil)
	cmd := exec.Command(bin, append([]string{"--dir", project, "mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// `flowdeck mcp --person --via ORIGIN` serves the person: under the
// "cockpit" policy its plan approval and decision answer are accepted,
// recorded as human via the origin (not the client's name), and the
// history says so; without --person the approval is refused as before,
// and a launched agent's --person grants it nothing.
func TestMCPPersonServesThePerson(t *testing.T) {
	dir := t.TempDir()
	cfg := personConfig(t, "[session]\nperson_decisions = \"cockpit\"\n")
	flowdeck(t, dir, "flow", "plan", "start", "the fleet approves")
	apply := connectEnv(t, dir, cfg)
	mustOK(t, apply, "flow_plan_apply", map[string]any{"plan": map[string]any{"summary": "p",
		"features": []any{map[string]any{"id": "a", "title": "A"}}}})
	refusedPerson(t, apply, "flow_plan_approve", nil)
	agent := connectWith(t, dir, []string{cfg, "FLOWDECK_AGENT=worker-1"}, "--person", "--via", "fleet@laptop")
	refusedPerson(t, agent, "flow_plan_approve", nil)

	person := connectWith(t, dir, []string{cfg, "FLOWDECK_ACTOR="}, "--person", "--via", "fleet@laptop")
	out := mustOK(t, person, "flow_plan_approve", nil)
	evs, _ := out["events"].([]any)
	if len(evs) == 0 {
		t.Fatalf("no events: %v", out)
	}
	if ev := evs[0].(map[string]any); ev["actor"] != "human" || ev["via"] != "fleet@laptop" {
		t.Fatalf("the approval is recorded as %v via %v, want human via fleet@laptop", ev["actor"], ev["via"])
	}
	sess := out["session"].(map[string]any)["id"].(string)
	if hist := flowdeck(t, dir, "flow", "history", sess); !strings.Contains(hist, "human via fleet@laptop") {
		t.Fatalf("flow history does not say where the approval came from:\n%s", hist)
	}
	doc, err := person.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "flowdeck://session/index.md"})
	if err != nil || !strings.Contains(doc.Contents[0].Text, "| human via fleet@laptop |") {
		t.Fatalf("the session's rendered history does not say where the approval came from: %v %v", err, doc)
	}

	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "ship?",
		Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}}, "flow", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, person, "decision_resolve", map[string]any{"decision_id": d.ID, "option": "yes"})
	got, err := st.Decision(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Resolution; r == nil || r.Actor != "human" || r.Via != "fleet@laptop" {
		t.Fatalf("the answer is recorded as %+v", r)
	}
}

// A --via outside its rule is refused before the server starts, naming
// the flag.
func TestMCPViaIsChecked(t *testing.T) {
	for _, via := range []string{"fleet laptop", "\x1b]0;pwned\x07", strings.Repeat("a", 65)} {
		cmd := exec.Command(bin, "--dir", t.TempDir(), "mcp", "--person", "--via", via)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "--via") {
			t.Errorf("--via %q: %v, stderr %q", via, err, stderr.String())
		}
	}
}
