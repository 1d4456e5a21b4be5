package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/testbin"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/runner"
)

// bin holds the real flowdeck and flowdeck-mcp, built once: the tests talk to
// `flowdeck mcp` over stdio as an agent's client would.
var bin string

func TestMain(m *testing.M) {
	runner.Reexec() // in-process runs re-execute this test binary to join cgroups
	var err error
	if bin, err = testbin.Build(testbin.Flowdeck, testbin.MCP); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// connect starts `flowdeck --dir project mcp` and initializes a session as
// the client "test-agent".
func connect(t *testing.T, project string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, opts)
	cmd := exec.Command(bin, "--dir", project, "mcp")
	cmd.Stderr = os.Stderr
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into a map; the text
// content must be the same JSON.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || out == nil {
		t.Fatalf("%s: structured content %s (%v)", name, raw, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", name, len(res.Content))
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &text); err != nil || !jsonEqual(text, out) {
		t.Fatalf("%s: text content differs from the structured content (%v)", name, err)
	}
	return out, res.IsError
}

// mustOK calls a tool that must be accepted.
func mustOK(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if isErr || out["ok"] != true {
		t.Fatalf("%s refused: %v", name, out)
	}
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// flowdeck runs the CLI on project and returns its stdout.
func flowdeck(t *testing.T, project string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"--dir", project}, args...)...).Output()
	if err != nil {
		t.Fatalf("flowdeck %v: %v", args, err)
	}
	return string(out)
}

var coreTools = []string{"flow_status", "flow_plan_start", "flow_plan_apply", "flow_plan_approve", "flow_run_start",
	"run", "flow_review_record_feature", "flow_run_complete_feature", "flow_review_record_final"}

var allTools = []string{
	"decision_resolve", "decisions_list", "diagram", "diff", "fleet_glance", "flow_history", "flow_land", "flow_note", "flow_plan_apply", "flow_plan_approve", "flow_plan_select_features",
	"flow_plan_start", "flow_reset_feature", "flow_reset_session", "flow_review_record_feature",
	"flow_review_record_final", "flow_run_complete_feature", "flow_run_interrupt", "flow_run_resume", "flow_run_start", "flow_session_activate",
	"flow_status", "flow_validate", "recall", "run",
}

func TestToolsAndSchemas(t *testing.T) {
	cs := connect(t, t.TempDir(), nil)
	if got := cs.InitializeResult().ServerInfo.Name; got != "flowdeck" {
		t.Fatalf("server name %q", got)
	}
	var names []string
	schemas := map[string]map[string]any{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		raw, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		json.Unmarshal(raw, &s)
		schemas[tool.Name] = s
		props, _ := s["properties"].(map[string]any)
		if _, ok := props["agent_id"]; !ok {
			t.Errorf("%s has no agent_id", tool.Name)
		}
		// Claude Code keeps the core tools in context, the rest behind
		// its tool search.
		if core := slices.Contains(coreTools, tool.Name); (tool.Meta["anthropic/alwaysLoad"] == true) != core {
			t.Errorf("%s: _meta %v, core %v", tool.Name, tool.Meta, core)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools = %v", names)
	}
	v := schemas["flow_validate"]
	if req := fmt.Sprint(v["required"]); req != "[feature_id status scope command]" {
		t.Errorf("flow_validate requires %s", req)
	}
	status := v["properties"].(map[string]any)["status"].(map[string]any)
	if fmt.Sprint(status["enum"]) != "[passed failed partial]" {
		t.Errorf("status enum %v", status["enum"])
	}
	cmd := schemas["run"]["properties"].(map[string]any)["command"].(map[string]any)
	if cmd["type"] != "array" {
		t.Errorf("run's command is %v, want an argv array", cmd["type"])
	}
	feats := schemas["flow_plan_apply"]["properties"].(map[string]any)["plan"].(map[string]any)["properties"].(map[string]any)["features"]
	if !strings.Contains(fmt.Sprint(feats), "depends_on") {
		t.Errorf("the plan schema does not describe features: %v", feats)
	}
}

// TestEveryToolRoundTrip drives a whole session through every tool of the
// real server, checks that results are the CLI's JSON objects, that a
// refusal is a tool error carrying code, message and recovery, and that the
// actor is agent_id or else the client's name.
func TestEveryToolRoundTrip(t *testing.T) {
	project := t.TempDir()
	cs := connect(t, project, nil)

	// A refusal: a tool error whose object says what to do.
	out, isErr := call(t, cs, "flow_plan_approve", nil)
	e, _ := out["error"].(map[string]any)
	rec, _ := e["recovery"].(map[string]any)
	if !isErr || out["ok"] != false || e["code"] != model.CodeNoActiveSession || e["message"] == "" || rec["next_command"] != "flowdeck flow plan start GOAL" || rec["hint"] == "" {
		t.Fatalf("refusal = %v (isError %v)", out, isErr)
	}
	// Arguments outside the schema, and arguments that only flowdeck can
	// judge, are refused as invalid_argument naming the field, and nothing
	// runs.
	out, isErr = call(t, cs, "diagram", map[string]any{"format": "svg"})
	if e, _ := out["error"].(map[string]any); !isErr || e["code"] != model.CodeInvalidArgument || e["field"] != "format" {
		t.Fatalf("format outside the enum: %v", out)
	}
	out, isErr = call(t, cs, "run", map[string]any{"command": []any{"touch", "ran"}, "timeout": "soon"})
	if e, _ := out["error"].(map[string]any); !isErr || e["code"] != model.CodeInvalidArgument || !strings.Contains(e["message"].(string), "soon") || e["field"] != "timeout" {
		t.Fatalf("bad timeout = %v", out)
	}
	if _, err := os.Stat(filepath.Join(project, "ran")); err == nil {
		t.Fatal("the command ran despite its bad timeout")
	}

	mustOK(t, cs, "flow_status", nil)
	started := mustOK(t, cs, "flow_plan_start", map[string]any{"goal": "Add password reset"})
	if ev := started["events"].([]any)[0].(map[string]any); ev["actor"] != "test-agent" {
		t.Fatalf("default actor = %v, want the client's name", ev["actor"])
	}
	sessionID := started["session"].(map[string]any)["id"].(string)
	mustOK(t, cs, "flow_plan_apply", map[string]any{"plan": map[string]any{
		"summary": "reset",
		"features": []any{
			map[string]any{"id": "token-store", "title": "Tokens", "verification": []any{"go test ./auth/..."}},
			map[string]any{"id": "reset-api", "title": "API", "depends_on": []any{"token-store"}},
			map[string]any{"id": "docs", "title": "Docs"},
		},
	}})
	sel := mustOK(t, cs, "flow_plan_select_features", map[string]any{"feature_ids": []any{"token-store", "reset-api"}})
	if n := sel["session"].(map[string]any)["counts"].(map[string]any)["features"]; n != 2.0 {
		t.Fatalf("selection kept %v features", n)
	}
	mustOK(t, cs, "flow_plan_approve", nil)
	start := mustOK(t, cs, "flow_run_start", map[string]any{"agent_id": "agent-7"})
	if ev := start["events"].([]any)[0].(map[string]any); ev["actor"] != "agent-7" || ev["feature"] != "token-store" {
		t.Fatalf("run start event = %v", ev)
	}

	// run: observed evidence, output stored for recall.
	run := mustOK(t, cs, "run", map[string]any{"command": []any{"sh", "-c", "echo needle-in-output; echo done"}, "feature_id": "token-store"})
	evd, _ := run["evidence"].(map[string]any)
	if evd["source"] != "observed" || evd["status"] != "passed" || run["run_id"] == "" || run["exit_code"] != 0.0 || run["class"] == "" {
		t.Fatalf("run = %v", run)
	}
	for _, key := range []string{"classification", "headline", "run", "Class", "Counts", "detail"} {
		if _, ok := run[key]; ok {
			t.Errorf("run result has %q: %v", key, run)
		}
	}
	hits := mustOK(t, cs, "recall", map[string]any{"query": "needle", "limit": 5})["hits"].([]any)
	if len(hits) == 0 || !strings.Contains(hits[0].(map[string]any)["text"].(string), "needle-in-output") {
		t.Fatalf("recall = %v", hits)
	}

	intr := mustOK(t, cs, "flow_run_interrupt", map[string]any{"feature_id": "token-store", "summary": "worker exited 1"})
	if f := intr["feature"].(map[string]any); f["state"] != "interrupted" || intr["next_command"] != "flowdeck flow run resume token-store" {
		t.Fatalf("interrupt = %v", intr)
	}
	mustOK(t, cs, "flow_run_resume", map[string]any{"feature_id": "token-store"})
	mustOK(t, cs, "flow_validate", map[string]any{"feature_id": "token-store", "status": "passed", "scope": "targeted", "command": "go test ./auth/...", "summary": "3 passed"})
	mustOK(t, cs, "flow_review_record_feature", map[string]any{"feature_id": "token-store", "decision": "approved", "findings": []any{"fine"}})
	mustOK(t, cs, "flow_run_complete_feature", map[string]any{"feature_id": "token-store", "outcome": "completed", "summary": "tokens stored"})
	mustOK(t, cs, "flow_run_start", map[string]any{"feature_id": "reset-api"})
	reset := mustOK(t, cs, "flow_reset_feature", map[string]any{"feature_id": "token-store"})
	if ids := fmt.Sprint(reset["events"].([]any)[0].(map[string]any)["feature_ids"]); ids != "[token-store reset-api]" {
		t.Fatalf("reset = %s", ids)
	}
	if d := mustOK(t, cs, "diagram", map[string]any{"format": "mermaid"}); !strings.Contains(d["diagram"].(string), "token-store") || d["format"] != "mermaid" {
		t.Fatalf("diagram = %v", d)
	}
	mustOK(t, cs, "flow_note", map[string]any{"text": "from the agent"})
	mustOK(t, cs, "flow_review_record_final", map[string]any{"decision": "needs_fix", "findings": []any{"not yet"}})

	// The same object as the CLI's --json.
	status := mustOK(t, cs, "flow_status", nil)
	var cli map[string]any
	if err := json.Unmarshal([]byte(flowdeck(t, project, "--json", "flow", "status")), &cli); err != nil || !jsonEqual(cli, status) {
		t.Fatalf("flow_status differs from flowdeck --json flow status (%v)", err)
	}

	// Resources: the fleet's glance, the diff, the index and one doc per feature.
	var uris []string
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if want := []string{"flowdeck://fleet/glance", "flowdeck://session/diff", "flowdeck://session/features/reset-api.md", "flowdeck://session/features/token-store.md", "flowdeck://session/index.md"}; !slices.Equal(uris, want) {
		t.Fatalf("resources = %v", uris)
	}
	for _, uri := range uris {
		if uri == "flowdeck://session/diff" || uri == "flowdeck://fleet/glance" {
			continue // the project is not in git: its diff is refused (TestDiffToolAndResource); the glance is JSON (TestFleetGlanceToolAndResource)
		}
		doc, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		if err != nil || !strings.Contains(doc.Contents[0].Text, "#") {
			t.Fatalf("read %s: %v", uri, err)
		}
	}
	if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "flowdeck://session/features/..%2Fx.md"}); err == nil {
		t.Fatal("a doc outside the plan was read")
	}

	// Decisions: a flow's question, answered once.
	st, err := db.Open(filepath.Join(project, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "Ship it?", Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}}, "flow", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pending := mustOK(t, cs, "decisions_list", nil)["decisions"].([]any)
	if len(pending) != 1 || pending[0].(map[string]any)["id"] != d.ID {
		t.Fatalf("decisions = %v", pending)
	}
	resolved := mustOK(t, cs, "decision_resolve", map[string]any{"decision_id": d.ID, "option": "yes", "note": "tests pass"})
	if r := resolved["decision"].(map[string]any); r["status"] != string(model.DecisionResolved) || r["resolution"].(map[string]any)["actor"] != "test-agent" {
		t.Fatalf("resolve = %v", resolved)
	}
	again, isErr := call(t, cs, "decision_resolve", map[string]any{"decision_id": d.ID, "option": "no"})
	if e, _ := again["error"].(map[string]any); !isErr || e["code"] != model.CodeDecisionNotPending {
		t.Fatalf("second resolve = %v", again)
	}
	if all := mustOK(t, cs, "decisions_list", map[string]any{"all": true})["decisions"].([]any); len(all) != 1 {
		t.Fatalf("all decisions = %v", all)
	}

	list := mustOK(t, cs, "flow_history", nil)
	if n := len(list["sessions"].([]any)); n != 1 {
		t.Fatalf("history lists %d sessions", n)
	}
	hist := mustOK(t, cs, "flow_history", map[string]any{"session_id": sessionID})
	if len(hist["events"].([]any)) < 10 {
		t.Fatalf("history = %v", hist)
	}
	mustOK(t, cs, "flow_reset_session", nil)
	back := mustOK(t, cs, "flow_session_activate", map[string]any{"session_id": sessionID})
	if back["session"].(map[string]any)["id"] != sessionID {
		t.Fatalf("activate = %v", back)
	}
	if out := flowdeck(t, project, "flow", "verify"); !strings.Contains(out, "matches") {
		t.Fatalf("verify: %s", out)
	}
}

// TestRunProgressAndCancel: a long run reports progress, and cancelling the
// call kills the command's whole process group.
func TestRunProgressAndCancel(t *testing.T) {
	project := t.TempDir()
	var mu sync.Mutex
	var progress []*sdk.ProgressNotificationParams
	cs := connect(t, project, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params)
		mu.Unlock()
	}})
	pids := filepath.Join(project, "pids")
	script := `sleep 300 & echo $! > ` + pids + `.tmp; echo $$ >> ` + pids + `.tmp; mv ` + pids + `.tmp ` + pids + `; while :; do echo tick; sleep 0.1; done`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"command": []any{"sh", "-c", script}, "timeout": "5m"}}
	params.SetProgressToken("run-1")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()

	deadline := time.Now().Add(2 * time.Minute) // a backstop
	for {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d progress notifications in 2 minutes", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	p := progress[len(progress)-1]
	if p.ProgressToken != "run-1" || p.Progress <= progress[0].Progress || p.Total != 300 || !strings.Contains(p.Message, "lines") {
		t.Fatalf("progress = %+v", p)
	}
	mu.Unlock()
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned a result")
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		waitGone(t, pid)
	}
	// The server is still serving, and the run was recorded as cancelled.
	mustOK(t, cs, "flow_status", nil)
	var listed struct {
		Runs []struct{ Outcome string } `json:"runs"`
	}
	json.Unmarshal([]byte(flowdeck(t, project, "--json", "runs")), &listed)
	if len(listed.Runs) != 1 || listed.Runs[0].Outcome != "cancelled" {
		t.Fatalf("runs = %+v", listed.Runs)
	}
}

// waitGone waits until pid no longer runs (a zombie counts as gone: it has
// exited and only waits for its parent).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a backstop: init may reap late on a loaded machine
	for {
		err := syscall.Kill(pid, 0)
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		zombie := false
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) {
			zombie = stat[i+2] == 'Z'
		}
		if err == syscall.ESRCH || zombie {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after the run was cancelled", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
