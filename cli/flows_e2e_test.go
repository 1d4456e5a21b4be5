package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

var (
	agentOnce sync.Once
	agentBin  string
	agentErr  error
)

// scriptedAgent builds testdata/scriptedagent once.
func scriptedAgent(t *testing.T) string {
	t.Helper()
	agentOnce.Do(func() {
		agentBin = filepath.Join(filepath.Dir(binary), "scriptedagent")
		out, err := exec.Command("go", "build", "-o", agentBin, "github.com/flowdeck/flowdeck/testdata/scriptedagent").CombinedOutput()
		if err != nil {
			agentErr = err
			agentBin = string(out)
		}
	})
	if agentErr != nil {
		t.Fatalf("build scripted agent: %v\n%s", agentErr, agentBin)
	}
	return agentBin
}

// flowProject is a git repository holding a tiny Go module, with a config
// file naming the scripted agent for the given roles.
type flowProject struct {
	dir, state string
	env        []string
}

func newFlowProject(t *testing.T, roles ...string) *flowProject {
	t.Helper()
	p := &flowProject{dir: t.TempDir(), state: t.TempDir()}
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", p.dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(p.dir, "go.mod"), []byte("module example.com/calc\n\ngo 1.21\n"), 0o644)
	agent := scriptedAgent(t)
	var cfg strings.Builder
	for _, r := range roles {
		q, _ := json.Marshal(agent)
		s, _ := json.Marshal(p.state)
		cfg.WriteString("[agents." + r + "]\ncommand = [" + string(q) + ", \"" + r + "\"]\nenv = { SCRIPTED_STATE = " + string(s) + " }\n\n")
	}
	path := filepath.Join(p.state, "config.toml")
	os.WriteFile(path, []byte(cfg.String()), 0o644)
	p.env = append(os.Environ(), "FLOWDECK_CONFIG="+path, "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return p
}

func (p *flowProject) cmd(args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	_ = cancel // released when the process ends: the deadline only guards against a hang
	c := exec.CommandContext(ctx, binary, append([]string{"--dir", p.dir}, args...)...)
	c.Env = p.env
	return c
}

// run runs flowdeck and decodes its --json output into v (when v != nil).
func (p *flowProject) run(t *testing.T, v any, args ...string) (string, int) {
	t.Helper()
	out, errs, code := runProcess(t, p.cmd(args...))
	if v != nil {
		if jerr := json.Unmarshal([]byte(out), v); jerr != nil {
			t.Fatalf("flowdeck %v: exit %d, output is not JSON: %v\n%s\nstderr:\n%s", args, code, jerr, out, errs)
		}
	}
	return out + errs, code
}

type runResult struct {
	OK       bool            `json:"ok"`
	Run      model.FlowRun   `json:"run"`
	Decision *model.Decision `json:"decision"`
}

func (p *flowProject) prompt(t *testing.T, name string) string {
	data, err := os.ReadFile(filepath.Join(p.state, name))
	if err != nil {
		t.Fatalf("the agent got no prompt %s: %v", name, err)
	}
	return string(data)
}

// TestFlowsEndToEnd: plan with the scripted planner (which answers badly
// twice) → the person approves → auto runs both features to completion on
// a real repository, the worker writing files and `go test` verifying them
// through the runner; the person's reviews go through flows.ResolveDecision,
// the function behind the cockpit's keys.
func TestFlowsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs go test several times; skipped with -short")
	}
	p := newFlowProject(t, "planner", "worker", "reviewer")
	var res runResult
	log, code := p.run(t, &res, "--json", "flows", "run", "plan", "Add arithmetic to calc", "--no-wait")
	if code != 0 || res.Run.Status != model.FlowWaiting || res.Decision == nil || res.Decision.Step != "review" {
		t.Fatalf("plan: exit %d, %+v\n%s", code, res.Run, log)
	}
	if !strings.Contains(res.Decision.Prompt, "mul") || len(res.Decision.Options) != 3 {
		t.Fatalf("plan review decision: %+v", res.Decision)
	}
	if pr := p.prompt(t, "planner-2.prompt"); !strings.Contains(pr, "could not be used: no JSON object") {
		t.Errorf("the planner's retry prompt does not explain:\n%s", pr)
	}
	if pr := p.prompt(t, "planner-3.prompt"); !strings.Contains(pr, "plan_unknown_dependency") {
		t.Errorf("the refused plan did not go back with the error:\n%s", pr)
	}
	st, err := db.Open(filepath.Join(p.dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flows.ResolveDecision(st, res.Decision.ID, flows.Answer{Option: "approve"}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	planRun := res.Run.ID
	if log, code = p.run(t, &res, "--json", "flows", "resume", planRun); code != 0 || res.Run.Status != model.FlowCompleted {
		t.Fatalf("plan resume: exit %d %+v\n%s", code, res.Run, log)
	}

	log, code = p.run(t, &res, "--json", "flows", "run", "auto", "--no-wait")
	autoRun := res.Run.ID
	var confirmed []string
	for i := 0; res.Run.Status == model.FlowWaiting && i < 5; i++ {
		d := res.Decision
		if !strings.Contains(d.Prompt, "The reviewer agent says approved") {
			t.Errorf("decision %s does not show the reviewer's verdict:\n%s", d.ID, d.Prompt)
		}
		confirmed = append(confirmed, d.Step)
		if _, err := flows.ResolveDecision(st, d.ID, flows.Answer{Option: "approved", Note: "ok by me"}, "person", time.Now()); err != nil {
			t.Fatal(err)
		}
		log, code = p.run(t, &res, "--json", "flows", "resume", autoRun, "--no-wait")
	}
	if code != 0 || res.Run.Status != model.FlowCompleted || res.Run.History[len(res.Run.History)-1].Step != "finished" {
		t.Fatalf("auto: exit %d, %s at %s: %s\n%s", code, res.Run.Status, res.Run.Step, res.Run.Error, log)
	}
	if strings.Join(confirmed, ",") != "confirm,confirm,final-confirm" {
		t.Errorf("the person was asked at %v", confirmed)
	}
	if pr := p.prompt(t, "worker-2.prompt"); !strings.Contains(pr, `"outcome": want one of`) {
		t.Errorf("the worker's retry prompt does not explain the wrong types:\n%s", pr)
	}
	if pr := p.prompt(t, "worker-4.prompt"); !strings.Contains(pr, "The verification failed") {
		t.Errorf("the failed verification did not go back to the worker:\n%s", pr)
	}

	// The session, its event log, its docs and the observed evidence.
	s, err := st.Active()
	if err != nil || s == nil || s.Status != model.StatusCompleted {
		t.Fatalf("session: %v %+v", err, s)
	}
	events, err := st.Events(s.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[model.EventType]int{}
	personReviews := 0
	for _, ev := range events {
		count[ev.Type]++
		if ev.Type == model.EventReviewRecorded && ev.Actor == "person" {
			personReviews++
		}
	}
	if count[model.EventPlanApproved] != 1 || count[model.EventFeatureCompleted] != 2 || count[model.EventSessionCompleted] != 1 || personReviews != 3 {
		t.Errorf("event log: %v, %d reviews by the person", count, personReviews)
	}
	mul := s.Plan.Feature("mul")
	var statuses []string
	for _, v := range mul.Validations {
		if v.Source != model.SourceObserved || v.RunID == "" {
			t.Errorf("mul evidence not observed: %+v", v)
		}
		statuses = append(statuses, string(v.Scope)+":"+string(v.Status))
	}
	if strings.Join(statuses, ",") != "targeted:failed,targeted:passed,broad:passed" {
		t.Errorf("mul evidence: %v", statuses)
	}
	for _, doc := range []string{"index.md", "features/add.md", "features/mul.md"} {
		data, err := os.ReadFile(filepath.Join(p.dir, ".flow", "sessions", s.ID, "docs", doc))
		if err != nil || !strings.Contains(string(data), "observed") {
			t.Errorf("doc %s: %v\n%s", doc, err, data)
		}
	}
	for _, f := range []string{"add.go", "mul.go"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err != nil {
			t.Errorf("the worker's %s: %v", f, err)
		}
	}
	// auto on the completed session asks for the next goal.
	log, code = p.run(t, &res, "--json", "flows", "run", "auto", "--no-wait")
	if h := res.Run.History; code != 0 || res.Run.Status != model.FlowCompleted || len(h) == 0 || h[len(h)-1].Step != "completed-need-goal" {
		t.Errorf("auto on a completed session: exit %d, %+v\n%s", code, res.Run, log)
	}
	fevents, err := st.FlowEvents(autoRun, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	resolved := 0
	for _, ev := range fevents {
		if ev.Type == model.FlowEvDecisionResolved {
			resolved++
		}
	}
	if resolved != 3 {
		t.Errorf("the auto run's log has %d resolved decisions", resolved)
	}
	if out, code := p.run(t, nil, "flow", "verify"); code != 0 {
		t.Errorf("flow verify: %s", out)
	}
}

// TestFlowsCrashMidAgentStep: flowdeck is killed while an agent works; the
// run shows as interrupted with a retry/skip/cancel decision, and resumes
// after it.
func TestFlowsCrashMidAgentStep(t *testing.T) {
	p := newFlowProject(t, "sleeper")
	os.MkdirAll(filepath.Join(p.dir, ".flow", "flows"), 0o755)
	os.WriteFile(filepath.Join(p.dir, ".flow", "flows", "slow.md"), []byte("---\nliterate: true\nagent: sleeper\n---\n"+
		"```yaml {config}\nstep: work\nparse:\n  done: bool\n```\nDo the slow thing.\n---\n"+
		"```yaml {config}\nstep: end\nstop: true\n```\nFinished: $done\n"), 0o644)
	c := p.cmd("flows", "run", "slow")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute) // a backstop
	for {
		if _, err := os.Stat(filepath.Join(p.state, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatal("the agent never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.Process.Kill()
	c.Wait()

	var runs struct {
		Runs []model.FlowRun `json:"runs"`
	}
	p.run(t, &runs, "--json", "flows", "runs")
	if len(runs.Runs) != 1 || runs.Runs[0].Status != model.FlowInterrupted || runs.Runs[0].Decision == "" {
		t.Fatalf("after the kill: %+v", runs.Runs)
	}
	run := runs.Runs[0]
	var ds struct {
		Decisions []model.Decision `json:"decisions"`
	}
	p.run(t, &ds, "--json", "decisions")
	if len(ds.Decisions) != 1 || ds.Decisions[0].Kind != model.DecisionInterrupted || len(ds.Decisions[0].Options) != 3 {
		t.Fatalf("decisions: %+v", ds.Decisions)
	}
	os.WriteFile(filepath.Join(p.state, "fast"), nil, 0o644)
	if out, code := p.run(t, nil, "decide", run.Decision, "retry"); code != 0 {
		t.Fatalf("decide: %s", out)
	}
	if out, code := p.run(t, nil, "decide", run.Decision, "skip"); code != 1 || !strings.Contains(out, "already resolved") {
		t.Fatalf("a second resolution: exit %d %s", code, out)
	}
	var res runResult
	if out, code := p.run(t, &res, "--json", "flows", "resume", run.ID); code != 0 || res.Run.Status != model.FlowCompleted || res.Run.Vars["done"] != true {
		t.Fatalf("resume: exit %d %+v\n%s", code, res.Run, out)
	}
}

func TestFlowsCheckListShow(t *testing.T) {
	p := newFlowProject(t)
	bad := filepath.Join(p.dir, "bad.md")
	os.WriteFile(bad, []byte("---\nliterate: true\n---\n```yaml {config}\nstep: a\nnext: nowhere\nwhat: 1\n```\n```cobol {exec}\nx\n```\n"), 0o644)
	out, code := p.run(t, nil, "flows", "check", bad, "plan")
	for _, want := range []string{bad + ":6: step \"a\": next target \"nowhere\"", bad + ":7: unknown config key \"what\"", bad + ":9: unknown interpreter \"cobol\"", "✓ builtin:plan"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("check exit %d", code)
	}
	// an unknown next target alone: a warning, an error with --strict
	lenient := filepath.Join(p.dir, "lenient.md")
	os.WriteFile(lenient, []byte("---\nliterate: true\n---\n```yaml {config}\nstep: a\nnext: later\n```\nA\n---\n```yaml {config}\nstep: b\n```\nB\n"), 0o644)
	if out, code := p.run(t, nil, "flows", "check", lenient); code != 0 || !strings.Contains(out, "warning: "+lenient+":6: step \"a\": next target \"later\"") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	if out, code := p.run(t, nil, "flows", "check", "--strict", lenient); code != 1 || !strings.Contains(out, lenient+":6:") {
		t.Errorf("check --strict: exit %d\n%s", code, out)
	}
	var list struct {
		Flows []flows.Entry `json:"flows"`
	}
	p.run(t, &list, "--json", "flows", "list")
	var names []string
	for _, f := range list.Flows {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "auto,plan,review,run" {
		t.Errorf("flows list: %v", names)
	}
	src, _ := flows.Builtin("run")
	if out, code := p.run(t, nil, "flows", "show", "run"); code != 0 || out != string(src) {
		t.Errorf("flows show run: exit %d, %d bytes", code, len(out))
	}
	// A variable is data in an exec block, whatever it holds.
	os.WriteFile(filepath.Join(p.dir, "echo.md"), []byte("---\nliterate: true\n---\n```sh {exec mode=store}\nprintf '{\"got\": \"%s\"}' \"$(printf %s $v | od -An -tx1 | tr -d ' \\n')\"\n```\n"), 0o644)
	hostile := "a'b\"c $(touch PWNED) `touch PWNED`\nd"
	var res runResult
	p.run(t, &res, "--json", "flows", "run", filepath.Join(p.dir, "echo.md"), "--var", "v="+hostile)
	if want := fmt.Sprintf("%x", hostile); res.Run.Vars["got"] != want {
		t.Errorf("the value arrived as %v, want %s", res.Run.Vars["got"], want)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "PWNED")); err == nil {
		t.Error("a variable ran a command")
	}
}

// The attack through the real binary: --var with a double quote,
// after an arithmetic shift, reaches the shell as data. The greeting-style
// store block that prints no JSON goes on; --strict refuses it.
func TestFlowsRunVarAfterArithmeticShift(t *testing.T) {
	p := newFlowProject(t)
	canary := filepath.Join(t.TempDir(), "x")
	flow := filepath.Join(p.dir, "attack.md")
	os.WriteFile(flow, []byte("---\nliterate: true\n---\n```yaml {config}\nstep: one\n```\n"+
		"```bash {exec}\nflags=$(( 1 << 3 ))\nx=1; (( x <<= 1 ))\necho \"flags=$flags user=$name\"\n```\n"+
		"```python {exec mode=store}\nimport json\njson.dumps({'a': 1})\n```\n"), 0o644)
	name := `bob"; touch ` + canary + `; echo "`
	out, code := p.run(t, nil, "flows", "run", flow, "--var", "name="+name)
	if _, err := os.Stat(canary); err == nil {
		t.Fatalf("the value ran a command:\n%s", out)
	}
	if code != 0 || !strings.Contains(out, "flags=8 user="+name) || !strings.Contains(out, "printed no JSON object; nothing stored") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if out, code := p.run(t, nil, "flows", "run", "--strict", flow, "--var", "name=x"); code == 0 || !strings.Contains(out, "printed no JSON object") {
		t.Fatalf("--strict: exit %d:\n%s", code, out)
	}
}

// TestRunFlowStopsWhenStartIsRefused: /flow-run logout while login-page is
// active is refused (feature_already_active) and the run ends refused
// without touching login-page; with no feature, or the active one, the run
// goes on with the active feature.
func TestRunFlowStopsWhenStartIsRefused(t *testing.T) {
	p := newFlowProject(t)
	plan := filepath.Join(p.state, "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","features":[{"id":"login-page","title":"Login"},{"id":"logout","title":"Logout"}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "auth"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"}, {"flow", "run", "start", "login-page"}} {
		if out, code := p.run(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
	}
	var res runResult
	log, code := p.run(t, &res, "--json", "flows", "run", "run", "logout", "--no-wait")
	if code != ExitRejected || res.OK || res.Run.Status != model.FlowRefused || !strings.Contains(res.Run.Error, "feature login-page is already active (feature_already_active)") {
		t.Fatalf("run logout: exit %d, ok %v, %s: %q\n%s", code, res.OK, res.Run.Status, res.Run.Error, log)
	}
	for _, h := range res.Run.History {
		if h.Step == "work" {
			t.Fatalf("the refused run went on to work: %+v", res.Run.History)
		}
	}
	var status struct {
		Session model.Session `json:"session"`
	}
	if out, code := p.run(t, &status, "--json", "flow", "status"); code != 0 || status.Session.Execution.ActiveFeature != "login-page" {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{}, {"login-page"}} {
		log, code = p.run(t, &res, append([]string{"--json", "flows", "run", "run"}, append(args, "--no-wait")...)...)
		if code != 0 || res.Run.Status != model.FlowWaiting || res.Run.Step != "work" || res.Run.Vars["feature"] != "login-page" {
			t.Fatalf("run %v: exit %d, %s at %s, feature %v\n%s", args, code, res.Run.Status, res.Run.Step, res.Run.Vars["feature"], log)
		}
	}
}
