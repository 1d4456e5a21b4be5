package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/gittest"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// gitProject is a project in a new git repository (main.go committed),
// with do applying actions through the project as the cockpit does.
func gitProject(t *testing.T, label string) (string, *db.Store, func(model.Action)) {
	t.Helper()
	dir := gittest.Repo(t, label, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	p := testProject(st, zeroConfig(), func() time.Time { return t0 })
	return dir, st, func(a model.Action) {
		t.Helper()
		if res, err := p.Do(a, 0, false); err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", a.Name(), err, res)
		}
	}
}

// fakeEditor sets VISUAL to an editor that takes +LINE and does nothing,
// on any machine; it returns its path.
func fakeEditor(t *testing.T) string {
	t.Helper()
	vi := filepath.Join(t.TempDir(), "vi")
	if err := os.WriteFile(vi, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", vi)
	return vi
}

// TestReviewOpensOnTheChange: in a real git repository the review dialog
// opens on the feature's diff with each verification command's state; E
// switches to the evidence and back; e opens the editor at the first
// changed line of the selected file; esc lists the files, then leaves; d
// shows the change from the features pane.
func TestReviewOpensOnTheChange(t *testing.T) {
	dir, st, do := gitProject(t, "the change is read from git")
	do(model.PlanStart{Goal: "greet"})
	do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{
		{ID: "greet", Title: "Greet", Verification: []string{"go test ./...", "go vet ./..."}}, {ID: "more", Title: "More"}}}})
	do(model.PlanApprove{})
	do(model.RunStart{Feature: "greet"})
	os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package main\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n"), 0o644)
	do(model.Validate{Feature: "greet", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./...", Source: model.SourceObserved})
	do(model.Validate{Feature: "greet", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go vet ./...", Source: model.SourceReported})

	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("Review greet", "verification: go test ./... obs✓, go vet ./... rep✓", "1 files changed, +4 −0",
		"A greet.go", "+func Hello() string")
	h.clk.Add(time.Second) // past the grace of a prompt that opened by itself
	h.key("E")
	h.mustSee("validation: targeted passed (reported) · go vet ./...")
	h.mustNotSee("+func Hello() string")
	h.key("E")
	h.mustSee("+func Hello() string")

	script := fakeEditor(t)
	_, cmd := h.m.Update(uitest.Key("e"))
	x := h.nextExec(cmd)
	if x == nil {
		t.Fatal("e ran no editor")
	}
	ed, _ := execParts(t, x)
	if want := []string{script, "+1", filepath.Join(dir, "greet.go")}; !slices.Equal(ed.Args, want) || ed.Dir != dir {
		t.Fatalf("editor argv %q in %s, want %q in %s", ed.Args, ed.Dir, want, dir)
	}

	h.key("esc") // the diff: back to the list of files
	h.mustSee("Review greet", "A greet.go")
	h.mustNotSee("+func Hello() string")
	h.key("enter") // one file's whole diff
	h.mustSee("+func Hello() string")
	h.key("esc", "esc") // the list, then the dialog waits
	h.mustNotSee("─ Review greet")
	h.mustSee("Review greet still waits")

	h.key("d")
	h.mustSee("Change of greet", "+func Hello() string")
	h.key("esc", "esc")
	h.mustNotSee("─ Change of greet")
	if strings.Contains(h.screen(), "pinning need git") {
		t.Fatal("a git project said it is not in git")
	}
}

// editorAt opens only a regular file beneath the work tree: a path from
// the diff (agent-written) that climbs out, or leads out through a
// symlinked directory or file, is refused.
func TestEditorAtStaysInTheWorkTree(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.go"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(dir, "leak.go"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	fakeEditor(t)
	if cmd, err := editorAt(dir, "a.go", 3); err != nil || !slices.Contains(cmd.Args, "+3") || cmd.Dir != dir {
		t.Fatalf("a file in the tree: %v %v", cmd, err)
	}
	for _, bad := range []string{"../" + filepath.Base(outside) + "/secret.go", "out/secret.go", "leak.go", "sub", "missing.go", "/etc/passwd"} {
		if cmd, err := editorAt(dir, bad, 1); err == nil {
			t.Errorf("%s opened: %v", bad, cmd.Args)
		}
	}
}
