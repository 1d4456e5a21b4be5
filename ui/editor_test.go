package ui

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
)

// testEditor is $VISUAL for these tests: a shell script that, on its nth
// run, keeps a copy of the file it was given (seen.N) and replaces it with
// round.N (or leaves it when there is none).
type testEditor struct {
	t   *testing.T
	dir string
}

func newTestEditor(t *testing.T) *testEditor {
	dir := t.TempDir()
	script := `#!/bin/sh
dir=$(dirname "$0")
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$dir/count"
cp "$1" "$dir/seen.$n"
if [ -f "$dir/round.$n" ]; then cp "$dir/round.$n" "$1"; fi
`
	if err := os.WriteFile(filepath.Join(dir, "editor.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "sh "+filepath.Join(dir, "editor.sh"))
	return &testEditor{t: t, dir: dir}
}

func (e *testEditor) round(n int, text string) {
	os.WriteFile(filepath.Join(e.dir, "round."+strconv.Itoa(n)), []byte(text), 0o644)
}

func (e *testEditor) seen(n int) string {
	b, _ := os.ReadFile(filepath.Join(e.dir, "seen."+strconv.Itoa(n)))
	return string(b)
}

// isExec reports whether msg is the message tea.ExecProcess's command
// returns (tea's own, unexported type).
func isExec(msg tea.Msg) bool {
	t := reflect.TypeOf(msg)
	return t != nil && t.PkgPath() == "charm.land/bubbletea/v2" && t.Name() == "execMsg"
}

// nextExec runs cmd and everything it leads to, as the harness does, and
// returns the tea.ExecProcess message it comes to, or nil.
func (h *harness) nextExec(cmd tea.Cmd) tea.Msg {
	h.tb.Helper()
	var found tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			if isExec(msg) {
				if found != nil {
					h.tb.Fatal("two editors at once")
				}
				found = msg
				continue
			}
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
	return found
}

// execParts takes the command and the callback out of an exec message, as
// Bubble Tea's runtime does.
func execParts(tb testing.TB, x tea.Msg) (*exec.Cmd, tea.ExecCallback) {
	tb.Helper()
	rv := reflect.New(reflect.TypeOf(x)).Elem()
	rv.Set(reflect.ValueOf(x))
	field := func(name string) any {
		f := rv.FieldByName(name)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	ec := field("cmd").(tea.ExecCommand)
	cmd := reflect.ValueOf(ec).Elem().FieldByName("Cmd").Interface().(*exec.Cmd)
	return cmd, field("fn").(tea.ExecCallback)
}

// editorRound runs the editor of exec message x, as the runtime would with
// the cockpit suspended, hands its completion to the model and returns the
// next editor the model asks for, or nil.
func (h *harness) editorRound(x tea.Msg) tea.Msg {
	h.tb.Helper()
	cmd, done := execParts(h.tb, x)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), io.Discard, io.Discard
	err := cmd.Run()
	return h.nextExec(func() tea.Msg { return done(err) })
}

func (h *harness) pressForExec(k string) tea.Msg {
	h.tb.Helper()
	_, cmd := h.m.Update(uitest.Key(k))
	return h.nextExec(cmd)
}

const cockpitPlan = `// from the cockpit's editor
{
  "summary": "password reset",
  "features": [
    {"id": "token-store", "title": "Tokens"},
    {"id": "reset-api", "title": "API", "depends_on": ["token-store"]},
  ],
}
`

func planningStore(t *testing.T) *db.Store {
	st := newStore(t)
	if _, err := st.Do(model.PlanStart{Goal: "password reset"}, "human", t0); err != nil {
		t.Fatal(err)
	}
	return st
}

// /flow-plan with no planner agent opens the plan in the editor through
// tea.ExecProcess; a refused plan comes back into it with the refusal on
// top and the person's text below; the accepted one is applied.
func TestFlowPlanOpensTheEditor(t *testing.T) {
	ed := newTestEditor(t)
	st := planningStore(t)
	h := newHarness(t, st, 120, 40, zeroConfig())
	bad := strings.Replace(cockpitPlan, `"depends_on": ["token-store"]`, `"depends_on": ["reset-api"]`, 1)
	ed.round(1, bad)
	ed.round(2, cockpitPlan)

	h.key(":")
	h.typeText("/flow-plan")
	x := h.pressForExec("enter")
	if x == nil {
		t.Fatal("/flow-plan did not run the editor")
	}
	cmd, _ := execParts(t, x)
	if cmd.Args[0] != "sh" || !strings.HasSuffix(cmd.Args[len(cmd.Args)-1], ".jsonc") {
		t.Fatalf("the editor's command: %q", cmd.Args)
	}
	file := cmd.Args[len(cmd.Args)-1]

	x = h.editorRound(x)
	if x == nil {
		t.Fatal("a refused plan did not reopen the editor")
	}
	if s := active(t, st); s.Plan != nil {
		t.Fatalf("a refused plan was stored: %+v", s.Plan)
	}
	if got := ed.seen(1); !strings.HasPrefix(got, "// A plan for flowdeck") {
		t.Fatalf("no plan yet: the editor was not given the template:\n%s", got)
	}
	h.mustSee("plan_self_dependency")

	if x = h.editorRound(x); x != nil {
		t.Fatal("an applied plan reopened the editor")
	}
	second := ed.seen(2)
	if !strings.HasPrefix(second, "// ✗ flowdeck did not apply this plan") || !strings.Contains(second, "plan_self_dependency") ||
		!strings.Contains(second, "at fault: reset-api (line ") || !strings.HasSuffix(second, bad) {
		t.Fatalf("the second round was given:\n%s", second)
	}
	s := active(t, st)
	if s.Plan == nil || len(s.Plan.Features) != 2 || s.Plan.Features[1].DependsOn[0] != "token-store" {
		t.Fatalf("stored plan: %+v", s.Plan)
	}
	if h.m.editing != nil {
		t.Fatal("the edit did not end")
	}
	h.mustSee("plan applied", "approves it")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the applied plan's file is left: %v", err)
	}

	// Saved unchanged: nothing happens, and the note says so.
	ed2 := newTestEditor(t)
	h.key(":")
	h.typeText("/flow-plan")
	if x := h.editorRound(h.pressForExec("enter")); x != nil {
		t.Fatal("an unchanged save reopened the editor")
	}
	if !strings.Contains(ed2.seen(1), `"id": "reset-api"`) {
		t.Fatalf("the stored plan was not what the editor opened:\n%s", ed2.seen(1))
	}
	h.mustSee("left unchanged", "nothing applied")
	if n := len(active(t, st).Execution.History); n != len(s.Execution.History) {
		t.Fatalf("an unchanged save stored %d events", n-len(s.Execution.History))
	}
}

// With a planner agent configured, /flow-plan without a goal is the usage
// error it always was: the planner writes plans.
func TestFlowPlanWithAPlannerNeedsAGoal(t *testing.T) {
	newTestEditor(t)
	cfg := darkConfig()
	cfg.Agents = map[string]config.Agent{"planner": {Command: []string{"true"}}}
	h := newHarness(t, planningStore(t), 120, 40, cfg)
	h.key(":")
	h.typeText("/flow-plan")
	if x := h.pressForExec("enter"); x != nil {
		t.Fatal("the editor opened though a planner agent writes the plan")
	}
	h.mustSee("usage: /flow-plan [GOAL]")
}

// planDraft stores the decision the plan flow's draft step asks a person
// (no planner agent) and returns its id.
func planDraft(t *testing.T, st *db.Store) string {
	t.Helper()
	d := &model.Decision{Flow: "plan", Step: "draft", Kind: model.DecisionForm, Prompt: "Write an implementation plan for this goal",
		Fields: []model.DecisionField{{Name: "plan", Type: "json"}}}
	made, _, err := st.CreateDecision(d, "human", t0)
	if err != nil {
		t.Fatal(err)
	}
	return made.ID
}

// The plan flow's form: ctrl+e on its plan field edits the plan in the
// editor; the plan is checked as the store would, reopened on a refusal,
// and the form is answered with it (the flow applies it).
func TestPlanFormFieldInTheEditor(t *testing.T) {
	ed := newTestEditor(t)
	st := planningStore(t)
	id := planDraft(t, st)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Write an implementation plan", "edit in $EDITOR")
	ed.round(1, `{"features": [{"id": "a", "depends_on": ["ghost"]}]}`)
	ed.round(2, cockpitPlan)
	x := h.pressForExec("ctrl+e")
	if x == nil {
		t.Fatal("ctrl+e did not run the editor")
	}
	if x = h.editorRound(x); x == nil || !strings.Contains(ed.seen(1), "// A plan for flowdeck") {
		t.Fatal("the refused plan was not reopened")
	}
	if x = h.editorRound(x); x != nil {
		t.Fatal("a good plan reopened the editor")
	}
	if !strings.Contains(ed.seen(2), "plan_unknown_dependency") {
		t.Fatalf("round 2 was given:\n%s", ed.seen(2))
	}
	d, err := st.Decision(id)
	if err != nil || d.Status == model.DecisionPending || d.Resolution == nil {
		t.Fatalf("the form was not answered: %+v %v", d, err)
	}
	plan, _ := d.Resolution.Vars["plan"].(map[string]any)
	if fs, _ := plan["features"].([]any); len(fs) != 2 {
		t.Fatalf("the answer's plan: %#v", d.Resolution.Vars["plan"])
	}
	if s := active(t, st); s.Plan != nil {
		t.Fatal("the cockpit applied the plan itself: the flow's apply step does")
	}
}

// /flow-plan GOAL without a planner: the plan flow's form, when it comes,
// opens straight in the editor.
func TestPlanFormOpensInTheEditorAfterFlowPlan(t *testing.T) {
	newTestEditor(t)
	st := planningStore(t)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.m.planInEditor = &flowJob{} // what /flow-plan GOAL sets (its flow needs the binary: TestCommandLinePlanStart)
	planDraft(t, st)
	var x tea.Msg
	for i := 0; i < 5 && x == nil; i++ {
		h.clk.Add(time.Second)
		ticks := h.ticks
		h.ticks = nil
		for _, fn := range ticks {
			if got := h.nextExec(func() tea.Msg { return fn(h.clk.Now()) }); got != nil {
				x = got
			}
		}
	}
	if x == nil {
		t.Fatal("the plan form did not open the editor")
	}
	if h.m.planInEditor != nil {
		t.Fatal("the next form would open the editor too")
	}
	h.editorRound(x) // left unchanged: the form stays
	h.mustSee("left unchanged", "ctrl+e edits it again", "Write an implementation plan")
}

// A form's list field (a reviewer's findings) is written one item per line
// in the editor; a one-line text field keeps ctrl+e for the end of line.
func TestFindingsFieldInTheEditor(t *testing.T) {
	ed := newTestEditor(t)
	st := newStore(t)
	d := &model.Decision{Kind: model.DecisionForm, Prompt: "Your review",
		Fields: []model.DecisionField{{Name: "summary", Type: "string"}, {Name: "findings", Type: "array"}}}
	if _, _, err := st.CreateDecision(d, "agent", t0); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Your review")
	if x := h.pressForExec("ctrl+e"); x != nil {
		t.Fatal("ctrl+e in a one-line text field opened the editor")
	}
	h.mustNotSee("edit in $EDITOR")
	h.key("tab")
	h.mustSee("edit in $EDITOR")
	ed.round(1, "// findings\nthe token never expires\n\n  the mail has no link  \n")
	if x := h.editorRound(h.pressForExec("ctrl+e")); x != nil {
		t.Fatal("a field edit reopened the editor")
	}
	dlg := h.m.top().(*decisionDialog)
	if got := dlg.f.fields[1].in.Value(); got != `["the token never expires","the mail has no link"]` {
		t.Fatalf("findings = %q", got)
	}
	// Edited again, the editor shows the items one per line.
	h.editorRound(h.pressForExec("ctrl+e"))
	if got := ed.seen(2); !strings.Contains(got, "\nthe token never expires\nthe mail has no link\n") {
		t.Fatalf("the second edit was given:\n%s", got)
	}
}
