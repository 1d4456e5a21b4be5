package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/demo"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// The demo's seed is a realistic session, and its scripted agent — the real
// binary — picks up the next feature once the person approves the review.
func TestDemoAgentWorksThroughTheRealCLI(t *testing.T) {
	dir := t.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.WriteProject(dir); err != nil {
		t.Fatal(err)
	}
	set, errs := patterns.Load(filepath.Join(dir, ".flow", "patterns"))
	if len(errs) > 0 {
		t.Fatalf("demo pattern: %v", errs)
	}
	if err := demo.Seed(context.Background(), st, dir, set); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Active()
	if s.Plan.CompletedCount() != 4 || len(s.Plan.Features) != 12 {
		t.Fatalf("seed: %d/%d completed", s.Plan.CompletedCount(), len(s.Plan.Features))
	}
	states := map[model.FeatureState]int{}
	for i := range s.Plan.Features {
		states[model.StateOf(s, &s.Plan.Features[i])]++
	}
	if states[model.StateAwaitingReview] != 1 || states[model.StateBlocked] != 1 || states[model.StateCompleted] != 4 {
		t.Fatalf("seed states = %v", states)
	}
	runs, _ := st.Runs(0)
	if len(runs) != 5 || runs[0].Summary != "6 passed, 0 failed" || runs[1].Class != string(patterns.Failure) {
		t.Fatalf("seed runs = %+v", runs)
	}

	agent := exec.Command(binary, "demo", "agent", "--dir", dir, "--tick", "50ms", "--delay", "0s", "--lines", "3")
	// Its own process group, so that the flowdeck runs it started die with
	// it and nothing writes into dir while the test cleans it up.
	agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-agent.Process.Pid, syscall.SIGKILL)
		agent.Wait()
		time.Sleep(50 * time.Millisecond) // let the killed runs' ptys close
	}()
	if _, errs, code := flowdeck(t, dir, "--actor", "person", "flow", "review", "callback-handler", "--decision", "approved"); code != 0 {
		t.Fatal(errs)
	}
	deadline := time.Now().Add(2 * time.Minute) // a backstop: the agent is a real process
	for {
		s, _ = st.Active()
		f := s.Plan.Feature("login-page")
		if f.Status == model.FeatureInProgress && len(f.Validations) >= 2 {
			break // the agent completed callback-handler, started login-page, failed once and fixed it
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not get to a fixed login-page: %+v", f)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s.Plan.Feature("callback-handler").Status != model.FeatureCompleted {
		t.Fatal("callback-handler not completed after approval")
	}
	f := s.Plan.Feature("login-page")
	if v := f.Validations; v[0].Status != model.ValidationFailed || v[1].Status != model.ValidationPassed || v[1].Source != model.SourceObserved {
		t.Fatalf("login-page evidence = %+v", v)
	}
}
