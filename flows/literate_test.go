package flows

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// The example of literate-commands' user guide (ask a name and type →
// confirm → create the directory with git init → success) runs unchanged;
// the person answers its questions.
func TestLiterateCommandsExampleRunsUnchanged(t *testing.T) {
	e, log := project(t, nil)
	f := readFlow(t, "../testdata/flows/literate-commands-project-setup.md")
	run, err := e.Start(context.Background(), f, f.Path, nil, nil)
	if err != ErrWaiting {
		t.Fatalf("start: %v", err)
	}
	d := pending(t, e, run)
	if d.Kind != model.DecisionForm || len(d.Fields) != 2 || !strings.Contains(d.Prompt, "name your project") {
		t.Fatalf("first decision: %+v", d)
	}
	run = answerAndResume(t, e, run, Answer{Vars: map[string]string{"name": "my app", "type": "library"}})
	d = pending(t, e, run)
	if d.Step != "confirm" || len(d.Fields) != 1 || d.Fields[0].Name != "confirmed" || !strings.Contains(d.Prompt, "Ready to create **my app** (library)?") {
		t.Fatalf("confirm decision: %+v", d)
	}
	run = answerAndResume(t, e, run, Answer{Option: "true"})
	if run.Status != model.FlowCompleted {
		t.Fatalf("status %s, error %q\n%s", run.Status, run.Error, log)
	}
	if _, err := os.Stat(filepath.Join(e.Root, "my app", ".git")); err != nil {
		t.Fatalf("project directory: %v\n%s", err, log)
	}
	var steps []string
	for _, h := range run.History {
		steps = append(steps, h.Step)
	}
	if strings.Join(steps, ",") != "project-info,confirm,create,success" {
		t.Fatalf("steps %v", steps)
	}
	if !strings.Contains(log.String(), "Project **my app** created successfully") {
		t.Fatalf("success message not shown:\n%s", log)
	}
	ex := run.Vars["exec"].(map[string]any)
	if ex["exit"] != float64(0) || !strings.Contains(ex["output"].(string), "✓ Created my app") {
		t.Fatalf("$exec after create: %v", ex)
	}
	// the other branch
	run2, _ := e.Start(context.Background(), f, f.Path, nil, nil)
	run2 = answerAndResume(t, e, run2, Answer{Vars: map[string]string{"name": "x", "type": "app"}})
	run2 = answerAndResume(t, e, run2, Answer{Option: "false"})
	if run2.Status != model.FlowCompleted || run2.History[len(run2.History)-1].Step != "cancel" {
		t.Fatalf("cancel branch: %s %+v", run2.Status, run2.History)
	}
	if _, err := ResolveDecision(e.Store, d.ID, Answer{Option: "true"}, "someone", time.Now()); err == nil || !strings.Contains(err.Error(), "already resolved") {
		t.Fatalf("second resolution: %v", err)
	}
}

// literate-commands' greeting example: its mode=store block calls
// json.dumps without printing. Nothing is stored, the step's history says
// so, and the flow goes on; --strict keeps the old refusal.
func TestStoreBlockPrintingNoJSONGoesOn(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; the greeting fixture runs a python block")
	}
	e, log := project(t, nil)
	f := readFlow(t, "../testdata/flows/lc-greeting.md")
	run, err := e.Start(context.Background(), f, f.Path, nil, nil)
	if err != ErrWaiting {
		t.Fatalf("start: %v", err)
	}
	run = answerAndResume(t, e, run, Answer{Vars: map[string]string{"name": `Ada "; import os #`}})
	if run.Status != model.FlowCompleted {
		t.Fatalf("status %s, error %q\n%s", run.Status, run.Error, log)
	}
	if _, ok := run.Vars["greeting"]; ok {
		t.Fatalf("something was stored: %v", run.Vars)
	}
	greet := run.History[1]
	if greet.Step != "greet" || len(greet.Notes) != 1 || !strings.Contains(greet.Notes[0], "printed no JSON object; nothing stored") {
		t.Fatalf("greet history %+v", greet)
	}
	if !strings.Contains(log.String(), `Goodbye, **Ada "; import os #**.`) {
		t.Fatalf("farewell not shown:\n%s", log)
	}

	e.Strict = true
	run, err = e.Start(context.Background(), f, f.Path, nil, nil)
	if err != ErrWaiting {
		t.Fatalf("strict start: %v", err)
	}
	run = answerAndResume(t, e, run, Answer{Vars: map[string]string{"name": "Ada"}})
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, "printed no JSON object") {
		t.Fatalf("strict: status %s, error %q", run.Status, run.Error)
	}
}

// An unknown next target is a warning; at run time the following step
// runs, with a note in the history. --strict refuses to start.
func TestUnknownNextTargetFollowsOn(t *testing.T) {
	e, log := project(t, nil)
	f := readFlow(t, "../testdata/flows/lc-unknown-next.md")
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Error(), `next target "review-later" is not a step`) {
		t.Fatalf("warnings %v", f.Warnings)
	}
	run, err := e.Start(context.Background(), f, f.Path, nil, nil)
	if err != nil || run.Status != model.FlowCompleted {
		t.Fatalf("run: %v %s %q\n%s", err, run.Status, run.Error, log)
	}
	if h := run.History; len(h) != 2 || h[1].Step != "finish" || len(h[0].Notes) != 1 || !strings.Contains(h[0].Notes[0], "review-later") {
		t.Fatalf("history %+v", run.History)
	}
	e.Strict = true
	if _, err := e.Start(context.Background(), f, f.Path, nil, nil); err == nil || !strings.Contains(err.Error(), "review-later") {
		t.Fatalf("strict start: %v", err)
	}
}

// The attack through the engine: a --var value with a double quote
// after an arithmetic shift stays data; a value that cannot be placed stops
// the step with the flow file, line and step named.
func TestExecShellValueAfterArithmeticShift(t *testing.T) {
	e, log := project(t, nil)
	canary := filepath.Join(t.TempDir(), "x")
	src := "---\nliterate: true\n---\n```yaml {config}\nstep: one\n```\n" +
		"```bash {exec mode=stdout}\nflags=$(( 1 << 3 ))\nx=1; (( x <<= 1 )) 2>/dev/null\necho \"flags=$flags user=$name\"\n```\n" +
		"---\n```yaml {config}\nstep: two\n```\n```sh {exec}\necho $(( $name + 1 ))\n```\n"
	f := parse(t, "attack.md", src)
	name := `bob"; touch ` + canary + `; echo "`
	run, err := e.Start(context.Background(), f, "attack.md", nil, map[string]any{"name": name})
	if _, serr := os.Stat(canary); serr == nil {
		t.Fatalf("the value ran a command\n%s", log)
	}
	if err != nil && err != ErrWaiting {
		t.Logf("start: %v", err)
	}
	events, _ := e.Store.FlowEvents(run.ID, 1, 0)
	found := false
	for _, ev := range events {
		found = found || ev.Output != nil && strings.Contains(*ev.Output, "flags=8 user="+name)
	}
	if !found {
		t.Fatalf("the value did not arrive as data\n%s", log)
	}
	if run.Status != model.FlowFailed || !strings.Contains(run.Error, `attack.md:16: step "two": exec block: line 1 of the block: $name: the shell evaluates this place as arithmetic`) {
		t.Fatalf("status %s error %q", run.Status, run.Error)
	}
}
