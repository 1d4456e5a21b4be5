package flows

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// A process executing a run holds an flock on .flow/flowruns/ID.lock for as
// long as it does. The kernel drops the lock when the process dies, so a run
// whose status says running and whose lock is free lost its process: that is
// how an interrupted run is recognised, without heartbeats.
type runLock struct{ f *os.File }

// openLock opens the run's lock file beneath the project (db.Store.OpenFile):
// a .flow/flowruns that leads out of it is refused, not followed.
func openLock(st *db.Store, id string) (*os.File, error) {
	return st.OpenFile(filepath.Join("flowruns", id+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
}

// lockRun takes the run's lock, waiting briefly for a process that is only
// inspecting it.
func lockRun(st *db.Store, id string) (*runLock, error) {
	f, err := openLock(st, id)
	if err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &runLock{f}, nil
		}
		if i == 20 {
			f.Close()
			return nil, fmt.Errorf("flow run %s is being executed by another process", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (l *runLock) release() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}

// tryLock takes the run's lock only if it is free at once: nil and no
// error when another process holds it; an error when the lock file cannot
// be opened or locked for another reason (that is no holder).
func tryLock(st *db.Store, id string) (*runLock, error) {
	f, err := openLock(st, id)
	if err != nil {
		return nil, fmt.Errorf("open the lock of %s: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("lock %s: %w", id, err)
	}
	return &runLock{f}, nil
}

// Executing reports whether a process executes run id right now; a lock
// that cannot be taken for another reason counts as executing, so that
// nothing takes over a run it cannot tell is free.
func Executing(st *db.Store, id string) bool {
	l, _ := tryLock(st, id)
	if l == nil {
		return true
	}
	l.release()
	return false
}

// Recover finds runs whose status says running but whose process is gone
// and marks them interrupted. A run cut off inside a non-idempotent exec or
// agent action gets a pending decision (retry, skip, cancel); the others
// resume where they stopped. It returns the runs it marked.
func Recover(st *db.Store, actor string, now time.Time) ([]model.FlowRun, error) {
	runs, err := st.FlowRuns()
	if err != nil {
		return nil, err
	}
	var marked []model.FlowRun
	for _, r := range runs {
		if r.Status != model.FlowRunning {
			continue
		}
		l, _ := tryLock(st, r.ID)
		if l == nil { // executing, or its lock cannot be told: not ours to mark
			continue
		}
		out, err := markInterrupted(st, r.ID, actor, now)
		l.release()
		if err != nil {
			return marked, err
		}
		if out != nil {
			marked = append(marked, *out)
		}
	}
	return marked, nil
}

// Settle brings flow runs and decisions up to date before they are listed:
// runs whose process died are marked interrupted (Recover), and pending
// decisions past their deadline take their fallback or fail their run. A
// list made without it would offer answers that can no longer be given.
func Settle(st *db.Store, actor string, now time.Time) error {
	if _, err := Recover(st, actor, now); err != nil {
		return fmt.Errorf("recover interrupted flow runs: %w", err)
	}
	pending, err := st.Decisions(true)
	if err != nil {
		return err
	}
	for _, d := range pending {
		if d.Deadline == nil || now.Before(*d.Deadline) {
			continue
		}
		if _, err := st.ExpireDecision(d.ID, now); err != nil {
			return fmt.Errorf("expire decision %s: %w", d.ID, err)
		}
	}
	return nil
}

func markInterrupted(st *db.Store, id, actor string, now time.Time) (*model.FlowRun, error) {
	run, err := st.FlowRun(id)
	if err != nil || run.Status != model.FlowRunning {
		return nil, err
	}
	if run.InFlight != nil && !run.InFlight.Idempotent {
		f, perr := flowfile.Parse(run.Source, []byte(run.Text))
		if perr != nil && f == nil {
			return nil, perr
		}
		_, r, err := st.CreateDecision(interruptedDecision(f, run), actor, now)
		return r, err
	}
	return st.AppendFlowEvents(id, actor, now, model.FlowEvent{Type: model.FlowEvInterrupted, Step: run.Step, StepIndex: run.StepIndex})
}
