package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// codePersonDecision is the public code of the refusal (model's constant,
// spelled out: it is the contract agents branch on).
const codePersonDecision = "person_decision"

// identWorker is a shell script standing in for an agent: it notes the
// identity flowdeck gave it, tries the person's decisions through the CLI
// (as an agent could), prints a marker for recall, and builds its feature
// in its worktree; feature x it reports blocked. Asked to catch up, it
// merges the integration branch and notes the prompt.
const identWorker = `#!/bin/sh
f=$FLOWDECK_FEATURE
s=$SCRIPTED_STATE
prompt=$(cat)
printf 'agent=%s feature=%s\n' "$FLOWDECK_AGENT" "$FLOWDECK_FEATURE" >> "$s/env-$f"
flowdeck hud > "$s/hud-$f.txt" 2>&1
try() {
	name=$1; shift
	flowdeck --json "$@" > "$s/try-$f-$name.json" 2>/dev/null
	echo $? > "$s/try-$f-$name.exit"
}
try approve flow plan approve
try final flow review --final --decision approved
try land flow land --force
try decide decide d-1 approved
case "$prompt" in
*"merge the integration branch into your branch now"*)
	printf '%s\n' "$prompt" > "$s/catchup-$f.txt"
	git merge -q --no-edit "flowdeck/$FLOWDECK_SESSION" >/dev/null 2>&1
	printf '{"catchup_outcome":"completed","catchup_summary":"merged it"}\n'
	exit 0;;
esac
echo "marker-output-of-$f"
if [ "$f" = x ]; then
	printf '{"outcome":"blocked","summary":"x cannot be built"}\n'
	exit 0
fi
echo "$f" > "$f.txt"
git add "$f.txt" && git commit -qm "built $f" >/dev/null 2>&1
printf '{"outcome":"completed","summary":"built %s"}\n' "$f"
`

// identProject is a git repository with a session planned from plan and
// approved by the person, and the shell worker as the worker agent.
type identProject struct {
	dir, state string
	env        []string
}

func newIdentProject(t *testing.T, plan string) *identProject {
	t.Helper()
	if !gitwork.Available() {
		t.Skip("git is not installed")
	}
	p := &identProject{dir: t.TempDir(), state: t.TempDir()}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"},
		{"commit", "-q", "--allow-empty", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", p.dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	script := filepath.Join(p.state, "worker.sh")
	os.WriteFile(script, []byte(identWorker), 0o755)
	q, _ := json.Marshal(script)
	s, _ := json.Marshal(p.state)
	cfg := filepath.Join(p.state, "config.toml")
	os.WriteFile(cfg, []byte("[agents.worker]\ncommand = [\"sh\", "+string(q)+"]\nenv = { SCRIPTED_STATE = "+string(s)+" }\n"), 0o644)
	p.env = []string{"FLOWDECK_CONFIG=" + cfg}
	os.WriteFile(filepath.Join(p.state, "plan.json"), []byte(plan), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "identity"}, {"flow", "plan", "apply", filepath.Join(p.state, "plan.json")},
		{"flow", "plan", "approve"}} {
		if out, errs, code := p.flowdeck(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	return p
}

func (p *identProject) flowdeck(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return flowdeckEnv(t, p.dir, p.env, args...)
}

func (p *identProject) json(t *testing.T, v any, args ...string) int {
	t.Helper()
	out, errs, code := p.flowdeck(t, append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: exit %d, not JSON: %v\n%s\n%s", args, code, err, out, errs)
	}
	return code
}

func (p *identProject) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.state, name))
	if err != nil {
		t.Fatalf("the worker left no %s: %v", name, err)
	}
	return string(b)
}

// decideAll approves every pending decision as the person (the CLI, no
// $FLOWDECK_AGENT) and says how many there were.
func (p *identProject) decideAll(t *testing.T) int {
	t.Helper()
	var res struct {
		Decisions []model.Decision `json:"decisions"`
	}
	p.json(t, &res, "decisions")
	for _, d := range res.Decisions {
		if out, errs, code := p.flowdeck(t, "decide", d.ID, "approved"); code != 0 {
			t.Fatalf("the person's decide %s: exit %d\n%s%s", d.ID, code, out, errs)
		}
	}
	return len(res.Decisions)
}

func (p *identProject) session(t *testing.T) *model.Session {
	t.Helper()
	var res struct {
		Session *model.Session `json:"session"`
	}
	p.json(t, &res, "flow", "status", "--full")
	if res.Session == nil {
		t.Fatal("no session")
	}
	return res.Session
}

// The crew's agents know who they are and are refused the person's
// decisions, through the CLI they call; their runs carry their feature;
// the validations are theirs; --no-wait returns when every slot waits;
// the catch-up names the integration branch and keeps the worker's
// outcome.
func TestCrewWorkersIdentity(t *testing.T) {
	p := newIdentProject(t, `{"summary": "two at once", "max_parallel": 2, "features": [
		{"id": "a", "title": "A", "verification": ["test -f a.txt"]},
		{"id": "b", "title": "B", "verification": ["test -f b.txt"]}]}`)
	var crew struct {
		OK   bool `json:"ok"`
		Crew struct {
			Runs []struct {
				Agent, Feature, Status, Decision string
			} `json:"runs"`
		} `json:"crew"`
	}
	// Both reviews wait for the person: --no-wait returns, exit 0.
	if code := p.json(t, &crew, "flows", "run", "auto", "--parallel", "2", "--no-wait"); code != 0 || !crew.OK || len(crew.Crew.Runs) != 2 {
		t.Fatalf("crew --no-wait: exit %d, %+v", code, crew)
	}
	for _, r := range crew.Crew.Runs {
		if r.Status != string(model.FlowWaiting) || r.Decision == "" {
			t.Fatalf("a run that waits for the person: %+v", r)
		}
	}
	agents := map[string]string{}
	for _, f := range []string{"a", "b"} {
		env := p.read(t, "env-"+f)
		agent, _, _ := strings.Cut(strings.TrimPrefix(env, "agent="), " ")
		if !strings.HasPrefix(agent, "worker-") || !strings.Contains(env, "feature="+f+"\n") {
			t.Fatalf("the agent on %s sees %q", f, env)
		}
		agents[f] = agent
		for _, try := range []string{"approve", "final", "land", "decide"} {
			var res struct {
				OK    bool         `json:"ok"`
				Error *model.Error `json:"error"`
			}
			if err := json.Unmarshal([]byte(p.read(t, "try-"+f+"-"+try+".json")), &res); err != nil {
				t.Fatal(err)
			}
			if exit := strings.TrimSpace(p.read(t, "try-"+f+"-"+try+".exit")); exit != "1" || res.OK || res.Error == nil || res.Error.Code != codePersonDecision {
				t.Errorf("worker on %s, %s: exit %s, %+v", f, try, exit, res.Error)
			}
		}
		hud := p.read(t, "hud-"+f+".txt")
		_, next, _ := strings.Cut(hud, "\nnext: ")
		if !strings.Contains(hud, "you: "+agent+" on feature "+f) || !strings.Contains(hud, "active: "+f+" ") ||
			!regexp.MustCompile(`(^|[ '"])`+f+`([ '"]|$)`).MatchString(strings.TrimSpace(next)) {
			t.Errorf("the HUD of the worker on %s (its next step is its feature's):\n%s", f, hud)
		}
		// recall --feature finds the worker's own output.
		out, errs, code := p.flowdeck(t, "recall", "--feature", f, "marker-output-of-"+f)
		if code != 0 || !strings.Contains(out, "marker-output-of-"+f) {
			t.Errorf("recall --feature %s: exit %d\n%s%s", f, code, out, errs)
		}
	}
	if agents["a"] == agents["b"] {
		t.Fatalf("both features' agents are %s", agents["a"])
	}
	// The agents' runs name their feature in runs --json.
	var runs struct {
		Runs []struct {
			Feature string   `json:"feature"`
			Actor   string   `json:"actor"`
			Argv    []string `json:"argv"`
		} `json:"runs"`
	}
	p.json(t, &runs, "runs", "--limit", "200")
	seen := map[string]bool{}
	for _, r := range runs.Runs {
		if strings.HasPrefix(r.Actor, "worker-") && strings.Contains(strings.Join(r.Argv, " "), "worker.sh") {
			if r.Feature == "" || agents[r.Feature] != r.Actor {
				t.Errorf("agent run of %s names feature %q", r.Actor, r.Feature)
			}
			seen[r.Feature] = true
		}
	}
	if !seen["a"] || !seen["b"] {
		t.Fatalf("agent runs with their feature: %v (%+v)", seen, runs.Runs)
	}
	// Crew validations are the workers', not the person's.
	s := p.session(t)
	for _, f := range []string{"a", "b"} {
		ft := s.Plan.Feature(f)
		if len(ft.Validations) == 0 || ft.Validations[0].Actor != agents[f] {
			t.Errorf("validation of %s: %+v, want actor %s", f, ft.Validations, agents[f])
		}
	}

	// The person answers; the crew goes on until the session completes.
	for i := 0; i < 6 && p.session(t).Status != model.StatusCompleted; i++ {
		if n := p.decideAll(t); n == 0 && i > 0 {
			t.Fatalf("nothing waits and the session is %s", p.session(t).Status)
		}
		if code := p.json(t, &crew, "flows", "run", "auto", "--parallel", "2", "--no-wait"); code != 0 {
			t.Fatalf("crew again: exit %d, %+v", code, crew)
		}
	}
	s = p.session(t)
	if s.Status != model.StatusCompleted {
		t.Fatalf("session %s", s.Status)
	}
	// The second completion needed a catch-up, which named the branch and
	// left the feature's outcome as its worker gave it.
	caught := ""
	for _, f := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(p.state, "catchup-"+f+".txt")); err == nil {
			caught = f
		}
		if note := s.Plan.Feature(f).OutcomeNote; note != "built "+f {
			t.Errorf("outcome note of %s: %q", f, note)
		}
	}
	if caught == "" || !strings.Contains(p.read(t, "catchup-"+caught+".txt"), "flowdeck/"+s.ID) {
		t.Fatalf("the catch-up prompt does not name flowdeck/%s (caught up: %q)", s.ID, caught)
	}
}

// In a sequential session with worktrees the last feature's branch starts
// from the integration branch with everything merged: no catch-up.
func TestCatchUpSkippedWhenContained(t *testing.T) {
	p := newIdentProject(t, `{"summary": "one after the other", "worktrees": true, "features": [
		{"id": "a", "title": "A", "verification": ["test -f a.txt"]},
		{"id": "b", "title": "B", "depends_on": ["a"], "verification": ["test -f b.txt"]}]}`)
	var res runResult
	if _, code := p.runJSON(t, &res, "flows", "run", "auto", "--no-wait"); code != 0 || res.Run.Status != model.FlowWaiting {
		t.Fatalf("auto: exit %d, %+v", code, res.Run)
	}
	id := res.Run.ID
	for i := 0; i < 8 && res.Run.Status == model.FlowWaiting; i++ {
		p.decideAll(t)
		if _, code := p.runJSON(t, &res, "flows", "resume", id, "--no-wait"); code != 0 {
			t.Fatalf("resume: exit %d, %+v", code, res.Run)
		}
	}
	s := p.session(t)
	if s.Status != model.StatusCompleted || !s.UsesWorktrees() {
		t.Fatalf("session %s (worktrees %v), run %+v", s.Status, s.UsesWorktrees(), res.Run)
	}
	for _, h := range res.Run.History {
		if h.Step == "catch-up" {
			t.Fatalf("catch-up ran though b's branch held the integration branch")
		}
	}
	if _, err := os.Stat(filepath.Join(p.state, "catchup-b.txt")); err == nil {
		t.Fatal("the worker was asked to catch up")
	}
	if note := s.Plan.Feature("b").OutcomeNote; note != "built b" {
		t.Errorf("outcome note of b: %q", note)
	}
}

func (p *identProject) runJSON(t *testing.T, v any, args ...string) (string, int) {
	t.Helper()
	out, errs, code := p.flowdeck(t, append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: exit %d, not JSON: %v\n%s\n%s", args, code, err, out, errs)
	}
	return out + errs, code
}

// flows run auto exits the same, sequential and parallel: a feature its
// worker reports blocked ends the loop as the flow says (0), and a plan
// that is not approved is refused (1) either way.
func TestAutoExitCodesSequentialAndParallel(t *testing.T) {
	plan := `{"summary": "blocked", "max_parallel": 2, "features": [{"id": "x", "title": "X", "verification": ["true"]}]}`
	codes := map[string]int{}
	for _, mode := range []string{"sequential", "parallel"} {
		p := newIdentProject(t, plan)
		args := []string{"flows", "run", "auto", "--no-wait"}
		if mode == "parallel" {
			args = append(args, "--parallel", "2")
		}
		out, errs, code := p.flowdeck(t, args...)
		codes[mode] = code
		if st := p.session(t).Plan.Feature("x").Outcome; st != model.OutcomeBlocked {
			t.Fatalf("%s: x's outcome %q\n%s%s", mode, st, out, errs)
		}
	}
	if codes["sequential"] != codes["parallel"] || codes["sequential"] != 0 {
		t.Fatalf("exit codes with a blocked feature: %v", codes)
	}
	for _, mode := range []string{"sequential", "parallel"} {
		p := &identProject{dir: t.TempDir()}
		p.env = []string{"FLOWDECK_CONFIG=" + filepath.Join(p.dir, "none.toml")}
		p.flowdeck(t, "flow", "plan", "start", "not approved")
		args := []string{"flows", "run", "auto", "--no-wait"}
		if mode == "parallel" {
			args = append(args, "--parallel", "2")
		}
		_, _, codes[mode] = p.flowdeck(t, args...)
	}
	if codes["sequential"] != codes["parallel"] || codes["sequential"] != 1 {
		t.Fatalf("exit codes without an approved plan: %v", codes)
	}
}
