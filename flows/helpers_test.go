package flows

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/runner"
)

func TestMain(m *testing.M) {
	runner.Reexec() // the isolator re-executes this binary to join cgroups
	os.Exit(m.Run())
}

// syncBuf is a bytes.Buffer safe for the engine's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// project makes a temporary project (a git repository) and an engine on it.
func project(t *testing.T, agents map[string]config.Agent) (*Engine, *syncBuf) {
	t.Helper()
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	st, err := db.Open(filepath.Join(root, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuf{}
	return &Engine{Store: st, Root: root, Agents: agents, Actor: "tester", Log: log, NoIsolation: true, Poll: 20 * time.Millisecond}, log
}

func parse(t *testing.T, path string, src string) *flowfile.Flow {
	t.Helper()
	f, err := flowfile.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readFlow(t *testing.T, path string) *flowfile.Flow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, path, string(data))
}

// pending returns the run's pending decision.
func pending(t *testing.T, e *Engine, run *model.FlowRun) *model.Decision {
	t.Helper()
	if run.Decision == "" {
		t.Fatalf("run %s (%s at %s) waits for nothing; error %q", run.ID, run.Status, run.Step, run.Error)
	}
	d, err := e.Store.Decision(run.Decision)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func answerAndResume(t *testing.T, e *Engine, run *model.FlowRun, a Answer) *model.FlowRun {
	t.Helper()
	d := pending(t, e, run)
	if _, err := ResolveDecision(e.Store, d.ID, a, "person", time.Now()); err != nil {
		t.Fatalf("resolve %s: %v", d.ID, err)
	}
	out, err := e.Resume(context.Background(), run.ID)
	if err != nil && err != ErrWaiting {
		t.Fatalf("resume: %v", err)
	}
	return out
}
