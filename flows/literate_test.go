package flows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"flowdeck/db"
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
	if d.Kind != db.DecisionForm || len(d.Fields) != 2 || !strings.Contains(d.Prompt, "name your project") {
		t.Fatalf("first decision: %+v", d)
	}
	run = answerAndResume(t, e, run, Answer{Vars: map[string]string{"name": "my app", "type": "library"}})
	d = pending(t, e, run)
	if d.Step != "confirm" || len(d.Fields) != 1 || d.Fields[0].Name != "confirmed" || !strings.Contains(d.Prompt, "Ready to create **my app** (library)?") {
		t.Fatalf("confirm decision: %+v", d)
	}
	run = answerAndResume(t, e, run, Answer{Option: "true"})
	if run.Status != db.FlowCompleted {
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
	if run2.Status != db.FlowCompleted || run2.History[len(run2.History)-1].Step != "cancel" {
		t.Fatalf("cancel branch: %s %+v", run2.Status, run2.History)
	}
	if _, err := ResolveDecision(e.Store, d.ID, Answer{Option: "true"}, "someone", time.Now()); err == nil || !strings.Contains(err.Error(), "already resolved") {
		t.Fatalf("second resolution: %v", err)
	}
}
