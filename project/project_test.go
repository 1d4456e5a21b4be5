package project

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// newRepo is a temporary repository root (it has .git) with a
// subdirectory, and no user config or patterns of the person running the
// tests.
func newRepo(t *testing.T) (root, sub string) {
	t.Helper()
	root = t.TempDir()
	sub = filepath.Join(root, "src", "pkg")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("FLOWDECK_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	return root, sub
}

func TestOpenFindsRootFromSubdirectory(t *testing.T) {
	root, sub := newRepo(t)
	p, err := Open(sub, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root() != root {
		t.Fatalf("root = %s, want %s", p.Root(), root)
	}
	// --dir is taken as the root itself.
	p, err = Open(sub, Options{AsRoot: true})
	if err != nil || p.Root() != sub {
		t.Fatalf("AsRoot: root = %v, %v; want %s", p, err, sub)
	}
	var notDir *NotDirError
	if _, err := Open(filepath.Join(root, "missing"), Options{AsRoot: true}); !errorsAs(err, &notDir) {
		t.Fatalf("a missing --dir: err = %v", err)
	}
}

// Reading a project without a database answers "no session" and creates
// nothing: no .flow, no file.
func TestReadOnlyOpenCreatesNothing(t *testing.T) {
	root, sub := newRepo(t)
	p, err := Open(sub, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Status(false)
	if err != nil || st.State != nil || st.NextCommand == "" {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if _, err := p.History(""); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Diagram("ascii"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Recall(model.RecallQuery{Query: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Runs(5, true); err != nil {
		t.Fatal(err)
	}
	if _, err := p.HUD(); err != nil {
		t.Fatal(err)
	}
	if evs, err := p.AgentEvents(); err != nil || len(evs) != 0 {
		t.Fatalf("agent events = %v, %v", evs, err)
	}
	if rep, err := p.Doctor(); err != nil || rep != nil {
		t.Fatalf("doctor = %v, %v", rep, err)
	}
	p.Patterns()
	if _, err := os.Stat(filepath.Join(root, ".flow")); !os.IsNotExist(err) {
		t.Fatalf(".flow exists after reads only (err %v)", err)
	}
	if p.HasDatabase() {
		t.Fatal("HasDatabase after reads only")
	}
}

// The config is read once, from $FLOWDECK_CONFIG, and its problems are
// reported once.
func TestConfigLoadedOnce(t *testing.T) {
	root, _ := newRepo(t)
	path := filepath.Join(t.TempDir(), "config.toml")
	write(t, path, "actor = \"carol\"\nbell = \"loud\"\n[run]\ntimeout = \"90s\"\n")
	t.Setenv("FLOWDECK_CONFIG", path)
	var warn bytes.Buffer
	p, err := Open(root, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if p.Actor() != "carol" || p.Config().Path != path {
		t.Fatalf("actor %q from %q", p.Actor(), p.Config().Path)
	}
	write(t, path, "actor = \"dave\"\n") // read once: a later change is not seen
	if p.Actor() != "carol" || p.RunDefaults().Timeout.String() != "1m30s" {
		t.Fatalf("after the file changed: actor %q, timeout %v", p.Actor(), p.RunDefaults().Timeout)
	}
	if n := strings.Count(warn.String(), "config:"); n != 1 || len(p.ConfigErrors()) != 1 {
		t.Fatalf("config problems reported %d times, kept %v:\n%s", n, p.ConfigErrors(), warn.String())
	}
	// As keeps the loaded config and names another actor.
	if a := p.As("agent-7"); a.Actor() != "agent-7" || a.Config().Path != path {
		t.Fatalf("As: actor %q, config %q", a.Actor(), a.Config().Path)
	}
}

// Patterns are loaded once for every run of the project: a broken file is
// reported once, and a pattern file removed after the first run still
// classifies the second.
func TestPatternsLoadedOnceAcrossRuns(t *testing.T) {
	root, _ := newRepo(t)
	dir := filepath.Join(root, ".flow", "patterns")
	write(t, filepath.Join(dir, "broken.toml"), "[[pattern\n")
	write(t, filepath.Join(dir, "hello.toml"), "[[pattern]]\nname = \"hello\"\ncommand_match = \"^echo\"\n"+
		"category = \"status\"\n[pattern.success]\npattern = \"hello\"\nsummary = \"said hello\"\n")
	var warn bytes.Buffer
	p, err := Open(root, Options{Warn: &warn, Actor: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		req := p.RunDefaults()
		req.Argv = []string{"echo", "hello"}
		res, err := p.Run(context.Background(), req, RunIO{})
		if err != nil {
			t.Fatal(err)
		}
		run := res.(*ops.RunResult)
		if run.Pattern != "hello" || run.Run.Actor != "tester" {
			t.Fatalf("run %d: pattern %q actor %q (%s)\n%s", i, run.Pattern, run.Run.Actor, run.Headline, warn.String())
		}
		if i == 0 {
			os.RemoveAll(dir)
		}
	}
	if n := strings.Count(warn.String(), "pattern skipped"); n != 1 {
		t.Fatalf("broken pattern reported %d times:\n%s", n, warn.String())
	}
}

// An action and a run for a feature go through one store: the run becomes
// evidence on the feature the actions started.
func TestDoRunRoundTrip(t *testing.T) {
	root, sub := newRepo(t)
	p, err := Open(sub, Options{Actor: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	feat := model.Feature{ID: "greet", Title: "Greet", Verification: []string{"echo hi"}}
	for _, a := range []model.Action{
		model.PlanStart{Goal: "say hi"},
		model.PlanApply{Plan: model.Plan{Summary: "hi", Features: []model.Feature{feat}}},
		model.PlanApprove{},
		model.RunStart{Feature: "greet"},
	} {
		res, err := p.Do(a, 0, false)
		if err != nil || !res.OK {
			t.Fatalf("%s: %+v, %v", a.Name(), res, err)
		}
	}
	req := p.RunDefaults()
	req.Argv, req.Feature = []string{"sh", "-c", "echo hi; pwd"}, "greet"
	var started string
	res, err := p.Run(context.Background(), req, RunIO{Started: func(id string) { started = id }})
	if err != nil {
		t.Fatal(err)
	}
	run := res.(*ops.RunResult)
	if !run.OK || run.Evidence == nil || run.RunID != started {
		t.Fatalf("run = %+v (started %q)", run, started)
	}
	out, _, err := p.ReadOutput(run.RunID, 0, 1<<10)
	if err != nil || !strings.Contains(string(out), root) {
		t.Fatalf("output %q (%v): a run works in the project root", out, err)
	}
	s, err := p.Active()
	if err != nil || s == nil || len(s.Plan.Feature("greet").Validations) == 0 {
		t.Fatalf("session %+v, %v: no evidence on greet", s, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".flow", "flowdeck.db")); err != nil {
		t.Fatalf("the database is at the root: %v", err)
	}
}

// A bad argument is an *ops.ArgError, found before anything is stored.
func TestRunArgErrors(t *testing.T) {
	root, _ := newRepo(t)
	p, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	req := p.RunDefaults()
	req.Argv, req.Pids = []string{"true"}, -1
	if _, err := p.Run(context.Background(), req, RunIO{}); !ops.IsArgError(err) {
		t.Fatalf("pids -1: err = %v", err)
	}
	if p.HasDatabase() {
		t.Fatal("a refused argument created the database")
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

// The config's bound on max_parallel is the model's.
func TestMaxParallelLimitsAgree(t *testing.T) {
	if config.MaxParallelLimit != model.MaxParallelLimit {
		t.Fatalf("config allows %d, the model %d", config.MaxParallelLimit, model.MaxParallelLimit)
	}
}

// An agent table whose name is not an agent's name (it becomes the agent's
// $FLOWDECK_AGENT and the actor of its runs) is dropped with an error that
// quotes it, from the project's file as from the person's.
func TestConfigAgentNamesAreAgentNames(t *testing.T) {
	root, _ := newRepo(t)
	path := filepath.Join(t.TempDir(), "config.toml")
	write(t, path, "[agents.\"bad\\u001b]0;x\\u0007\"]\ncommand = [\"a\"]\n[agents.worker]\ncommand = [\"w\"]\n")
	t.Setenv("FLOWDECK_CONFIG", path)
	os.MkdirAll(filepath.Join(root, ".flow"), 0o755)
	write(t, filepath.Join(root, ".flow", "config.toml"), "[agents.\"rev iewer\"]\ncommand = [\"r\"]\n")
	var warn bytes.Buffer
	p, err := Open(root, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	agents := p.Config().Agents
	if len(agents) != 1 || agents["worker"].Command[0] != "w" {
		t.Fatalf("agents: %v", agents)
	}
	if len(p.ConfigErrors()) != 2 || strings.Contains(warn.String(), "\x1b") || !strings.Contains(warn.String(), `"rev iewer"`) {
		t.Fatalf("errors %v:\n%q", p.ConfigErrors(), warn.String())
	}
}
