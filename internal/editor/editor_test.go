package editor

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestCommandSplitsLikeAShell(t *testing.T) {
	for _, tt := range []struct {
		visual, editor string
		want           []string
	}{
		{"", "", []string{Fallback, "/tmp/p"}},
		{"", "nano", []string{"nano", "/tmp/p"}},
		{"code --wait", "nano", []string{"code", "--wait", "/tmp/p"}},
		{"  ", "emacs -nw", []string{"emacs", "-nw", "/tmp/p"}},
		{`sh -c 'exec vi "$1"' editor`, "", []string{"sh", "-c", `exec vi "$1"`, "editor", "/tmp/p"}},
		{`"/opt/my editor/bin/ed" -x`, "", []string{"/opt/my editor/bin/ed", "-x", "/tmp/p"}},
		{"$FLOWDECK_TEST_ED --flag", "", []string{"myed", "--flag", "/tmp/p"}},
	} {
		t.Setenv("VISUAL", tt.visual)
		t.Setenv("EDITOR", tt.editor)
		t.Setenv("FLOWDECK_TEST_ED", "myed")
		argv, err := argvOf(t, "/tmp/p")
		if err != nil {
			t.Errorf("VISUAL=%q EDITOR=%q: %v", tt.visual, tt.editor, err)
			continue
		}
		if !slices.Equal(argv, tt.want) {
			t.Errorf("VISUAL=%q EDITOR=%q: argv %q, want %q", tt.visual, tt.editor, argv, tt.want)
		}
	}
	for _, bad := range []string{`vi "unterminated`, "vi $(rm -rf /)", "''"} {
		t.Setenv("VISUAL", bad)
		if _, err := Command("/tmp/p"); err == nil || !strings.Contains(err.Error(), "$VISUAL") {
			t.Errorf("VISUAL=%q: %v, want an error naming $VISUAL", bad, err)
		}
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "no-such-editor-anywhere")
	if _, err := Command("/tmp/p"); err == nil || !strings.Contains(err.Error(), "$EDITOR") {
		t.Errorf("a missing editor: %v", err)
	}
}

// argvOf is Command's argv, the program as the name it was given (exec
// resolves it to a path when it is on PATH).
func argvOf(t *testing.T, path string) ([]string, error) {
	t.Helper()
	// The test's names need not exist: put stand-ins on PATH.
	dir := t.TempDir()
	for _, n := range []string{Fallback, "nano", "code", "emacs", "myed"} {
		os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd, err := Command(path)
	if err != nil {
		return nil, err
	}
	return cmd.Args, nil
}

func TestTemplateIsAPlan(t *testing.T) {
	p, err := model.ParsePlan([]byte(PlanTemplate))
	if err != nil {
		t.Fatal(err)
	}
	if err := model.ValidatePlan(p); err != nil {
		t.Fatal(err)
	}
	if p.MaxParallel != 0 || p.Worktrees != nil {
		t.Fatal("the template sets max_parallel or worktrees: the config's defaults would not apply")
	}
	if got := string(PlanText(nil)); got != PlanTemplate {
		t.Fatal("no session: not the template")
	}
	s := &model.Session{Plan: &model.Plan{Summary: "s", Features: []model.Feature{{ID: "a", Title: "A", Status: model.FeatureCompleted}}}}
	if got := string(PlanText(s)); strings.Contains(got, "//") || !strings.Contains(got, `"id": "a"`) || strings.Contains(got, "completed") {
		t.Fatalf("a session's plan:\n%s", got)
	}
}

func TestAnnotateARefusal(t *testing.T) {
	body := "{\n  \"summary\": \"s\",\n  \"features\": [\n    {\"id\": \"api\", \"depends_on\": [\"db\"]},\n    {\"id\": \"ui\", \"depends_on\": [\"api\"]}\n  ]\n}\n"
	p, err := model.ParsePlan([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	refusal := model.ValidatePlan(p)
	out := string(Annotate([]byte(body), refusal))
	if !strings.HasSuffix(out, body) {
		t.Fatalf("the person's text is not kept below the note:\n%s", out)
	}
	note := strings.TrimSuffix(out, body)
	for _, w := range []string{noteFirst, "plan_unknown_dependency", `api -> db`, "hint: ", "at fault: api (line ", noteLast} {
		if !strings.Contains(note, w) {
			t.Errorf("note lacks %q:\n%s", w, note)
		}
	}
	// The line the note names is the one holding the id, in the new text.
	lines := strings.Split(out, "\n")
	n := len(strings.Split(note, "\n")) - 1
	if want := n + 4; !strings.Contains(note, "api (line "+strconv.Itoa(want)+")") || !strings.Contains(lines[want-1], `"id": "api"`) {
		t.Errorf("at fault names the wrong line (want %d):\n%s", want, out)
	}
	if strings.Contains(note, "ui (line") {
		t.Errorf("ui is named though the message does not name it:\n%s", note)
	}
	// A second refusal replaces the first note, never stacks on it.
	again := string(Annotate([]byte(out), refusal))
	if again != out {
		t.Fatalf("annotating again changed the text:\n%s", again)
	}
	if _, err := model.ParsePlan([]byte(out)); err != nil {
		t.Fatalf("the annotated text is no longer a plan: %v", err)
	}
}

func TestAnnotateASyntaxErrorNamesTheLineShown(t *testing.T) {
	body := "{\n  \"summary\": \"s\"\n  \"features\": []\n}\n" // a comma missing at the end of line 2
	_, err := model.ParsePlan([]byte(body))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("parse: %v", err)
	}
	out := string(Annotate([]byte(body), err))
	n := strings.Count(strings.TrimSuffix(out, body), "\n")
	if want := "line " + strconv.Itoa(n+3) + ", column 3"; !strings.Contains(out, want) {
		t.Fatalf("note does not say %q:\n%s", want, out)
	}
	// Parsing the annotated text reports the position the note names.
	_, again := model.ParsePlan([]byte(out))
	if again == nil || !strings.Contains(out, again.Error()) {
		t.Fatalf("the note says something else than the parser: %v\n%s", again, out)
	}
}

func TestReadPlanCancelsAndKeepsWhatWasTyped(t *testing.T) {
	f, err := New(PlanPattern, []byte(PlanTemplate))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Remove() })
	if fi, err := os.Stat(f.Path); err != nil || fi.Mode().Perm() != 0o600 || !strings.HasSuffix(f.Path, ".jsonc") {
		t.Fatalf("the file: %v %v", fi, err)
	}
	s, err := f.ReadPlan()
	if err != nil || s.Cancelled == "" || s.Plan != nil {
		t.Fatalf("unchanged: %+v %v", s, err)
	}
	os.WriteFile(f.Path, []byte("// nothing left\n\n"), 0o600)
	if s, _ := f.ReadPlan(); !strings.Contains(s.Cancelled, "empty") {
		t.Fatalf("empty: %+v", s)
	}
	os.WriteFile(f.Path, []byte(`{"features": [`), 0o600)
	s, _ = f.ReadPlan()
	if s.Problem == nil || s.Cancelled != "" {
		t.Fatalf("broken: %+v", s)
	}
	if err := f.Retry(s.Text, s.Problem); err != nil {
		t.Fatal(err)
	}
	if s, _ := f.ReadPlan(); !strings.Contains(s.Cancelled, "unchanged") {
		t.Fatalf("a retry saved as it was written: %+v", s)
	}
	// Cancelled with typed text: the file stays and the message names it.
	if msg := f.Cancel("the plan was left unchanged", nil); !strings.Contains(msg, f.Path) || !strings.Contains(msg, "plan apply") {
		t.Fatalf("cancel message %q", msg)
	}
	if _, err := os.Stat(f.Path); err != nil {
		t.Fatal("the typed text was removed")
	}
	os.WriteFile(f.Path, []byte(PlanTemplate), 0o600)
	if msg := f.Cancel("why", nil); msg != "why: nothing applied" {
		t.Fatalf("cancel message %q", msg)
	}
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		t.Fatal("an untouched file was kept")
	}
}
