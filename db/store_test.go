package db

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/model"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func newStore(t testing.TB) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), ".flow", "flowdeck.db"), Options{LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mustDo(t testing.TB, st *Store, a model.Action) *Outcome {
	t.Helper()
	out, err := st.Do(a, "tester", t0)
	if err != nil {
		t.Fatalf("%s: %v", a.Name(), err)
	}
	return out
}

func twoFeaturePlan() model.Plan {
	return model.Plan{Summary: "s", Features: []model.Feature{
		{ID: "a", Title: "A", Verification: []string{"go test ./a"}},
		{ID: "b", Title: "B", DependsOn: []string{"a"}},
	}}
}

func TestDoPersistsEventsAndSession(t *testing.T) {
	st := newStore(t)
	out := mustDo(t, st, model.PlanStart{Goal: "Ship the thing!"})
	if got, want := out.Session.ID, "20260304-050607-ship-the-thing"; got != want {
		t.Fatalf("session id %q, want %q", got, want)
	}
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	mustDo(t, st, model.PlanApprove{})

	active, err := st.Active()
	if err != nil {
		t.Fatal(err)
	}
	if active.Status != model.StatusReady || active.Approval != model.ApprovalApproved || active.Seq != 3 {
		t.Fatalf("active = %s/%s seq %d", active.Status, active.Approval, active.Seq)
	}
	events, err := st.Events(active.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range events {
		types = append(types, string(e.Type))
	}
	if got := strings.Join(types, ","); got != "session_started,plan_applied,plan_approved" {
		t.Fatalf("events = %s", got)
	}
	// The docs were rendered after the commit.
	for _, f := range []string{"index.md", "features/a.md", "features/b.md"} {
		if _, err := os.Stat(filepath.Join(st.DocsDir(active.ID), f)); err != nil {
			t.Errorf("doc %s: %v", f, err)
		}
	}
}

func TestRefusedActionChangesNothing(t *testing.T) {
	st := newStore(t)
	mustDo(t, st, model.PlanStart{Goal: "g"})
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	before, _ := st.changes()
	_, err := st.Do(model.RunStart{}, "tester", t0)
	if e, ok := model.AsError(err); !ok || e.Code != model.CodePlanNotApproved {
		t.Fatalf("err = %v, want plan_not_approved", err)
	}
	after, _ := st.changes()
	if before != after {
		t.Fatalf("change counter moved from %d to %d on a refused action", before, after)
	}
	s, _ := st.Active()
	if s.Seq != 2 {
		t.Fatalf("seq = %d after a refusal, want 2", s.Seq)
	}
}

func TestRejectedCompletionIsStoredWithTheError(t *testing.T) {
	st := newStore(t)
	mustDo(t, st, model.PlanStart{Goal: "g"})
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	mustDo(t, st, model.PlanApprove{})
	mustDo(t, st, model.RunStart{})
	out, err := st.Do(model.RunComplete{Feature: "a", Outcome: model.OutcomeCompleted}, "tester", t0)
	if e, ok := model.AsError(err); !ok || e.Code != model.CodeMissingValidation {
		t.Fatalf("err = %v, want missing_validation_evidence", err)
	}
	if out == nil || len(out.Events) != 1 || out.Events[0].Type != model.EventCompletionRejected {
		t.Fatalf("outcome = %+v, want one completion_rejected event", out)
	}
	s, _ := st.Active()
	if last := s.Execution.History[len(s.Execution.History)-1]; last.Type != model.EventCompletionRejected {
		t.Fatalf("last history item = %+v", last)
	}
}

func TestArchiveAndActivate(t *testing.T) {
	st := newStore(t)
	first := mustDo(t, st, model.PlanStart{Goal: "first"}).Session.ID
	// The same goal again changes nothing (Flow's habit).
	if out := mustDo(t, st, model.PlanStart{Goal: "First"}); out.Session.ID != first || len(out.Events) != 0 {
		t.Fatalf("same goal: %+v", out)
	}
	mustDo(t, st, model.ResetSession{})
	if s, _ := st.Active(); s != nil {
		t.Fatalf("active after archive = %s", s.ID)
	}
	// Nothing to reset is fine.
	if out := mustDo(t, st, model.ResetSession{}); out.Session != nil || len(out.Events) != 0 {
		t.Fatalf("reset with no session: %+v", out)
	}
	mustDo(t, st, model.ActivateSession{ID: first})
	// Another goal archives the session in progress and starts a new one, in
	// one transaction, the archive recording why.
	out := mustDo(t, st, model.PlanStart{Goal: "second"})
	second := out.Session.ID
	if len(out.Events) != 2 || out.Events[0].Type != model.EventSessionArchived || out.Events[0].Session != first ||
		!strings.Contains(out.Events[0].Summary, second) || !strings.Contains(out.Events[1].Summary, first) {
		t.Fatalf("replacing start: %+v", out.Events)
	}
	if first == second {
		t.Fatalf("two sessions started in the same second share id %s", first)
	}
	// Activating the first archives the second.
	out = mustDo(t, st, model.ActivateSession{ID: first})
	if out.Session.ID != first || out.Session.Archived {
		t.Fatalf("activate returned %+v", out.Session)
	}
	list, err := st.Sessions()
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions = %v, %v", list, err)
	}
	for _, info := range list {
		if info.ID == second && (!info.Archived || info.Active) {
			t.Errorf("second session should be archived and inactive: %+v", info)
		}
		if info.ID == first && (!info.Active || info.Archived) {
			t.Errorf("first session should be active: %+v", info)
		}
	}
	if _, err := st.Do(model.ActivateSession{ID: "nope"}, "tester", t0); err == nil {
		t.Fatal("activating an unknown session was accepted")
	}
	rep, err := st.Verify()
	if err != nil || len(rep.Problems) != 0 || rep.Sessions != 2 {
		t.Fatalf("verify = %+v, %v", rep, err)
	}
}

func TestVerifyNamesTheFirstDifferingEvent(t *testing.T) {
	st := newStore(t)
	id := mustDo(t, st, model.PlanStart{Goal: "g"}).Session.ID
	mustDo(t, st, model.AddNote{Text: "one"})
	mustDo(t, st, model.AddNote{Text: "two"})
	mustDo(t, st, model.AddNote{Text: "three"})
	// Corrupt event 3's payload so that replay diverges there.
	err := st.update(func(tx *bolt.Tx) error {
		log := tx.Bucket(bucketEvents).Bucket([]byte(id))
		var rec storedEvent
		if err := json.Unmarshal(log.Get(u64(3)), &rec); err != nil {
			return err
		}
		rec.Text = "tampered"
		raw, _ := json.Marshal(rec)
		return log.Put(u64(3), raw)
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Session != id || rep.Problems[0].Seq != 3 {
		t.Fatalf("problems = %+v, want one at event 3 of %s", rep.Problems, id)
	}
}

func TestNewerSchemaIsRefusedOlderIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flowdeck.db")
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error {
		m, _ := tx.CreateBucket(bucketMeta)
		return m.Put(keySchema, []byte("99"))
	})
	b.Close()
	_, err = Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99") || !strings.Contains(err.Error(), path) {
		t.Fatalf("opening a newer schema: %v", err)
	}

	old := filepath.Join(t.TempDir(), "flowdeck.db")
	b, _ = bolt.Open(old, 0o644, nil)
	b.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucketMeta); return err })
	b.Close()
	st, err := Open(old, Options{})
	if err != nil {
		t.Fatalf("migrating schema 0: %v", err)
	}
	mustDo(t, st, model.PlanStart{Goal: "after migration"})
}

func TestBusyDatabaseTimesOutClearly(t *testing.T) {
	st := newStore(t)
	st.timeout = 150 * time.Millisecond
	r, err := os.OpenRoot(st.project)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	held, err := acquire(r, st.lockRel, st.lock, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Do(model.PlanStart{Goal: "g"}, "tester", t0)
	held.release()
	var busy ErrBusy
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "FLOWDECK_LOCK_TIMEOUT") {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	// Once the holder is gone the same action goes through.
	mustDo(t, st, model.PlanStart{Goal: "g"})
}

func TestDocsFollowThePlan(t *testing.T) {
	st := newStore(t)
	id := mustDo(t, st, model.PlanStart{Goal: "g"}).Session.ID
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	mustDo(t, st, model.PlanSelect{FeatureIDs: []string{"a"}})
	if _, err := os.Stat(filepath.Join(st.DocsDir(id), "features", "b.md")); !os.IsNotExist(err) {
		t.Fatalf("doc of a feature that left the plan still exists: %v", err)
	}
	if _, err := os.Stat(filepath.Join(st.DocsDir(id), "features", "a.md")); err != nil {
		t.Fatal(err)
	}
}

func TestFindRoot(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "x", "y")
	os.MkdirAll(deep, 0o755)
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	got, err := FindRoot(deep)
	if err != nil || got != root {
		t.Fatalf("FindRoot = %q, %v; want %q", got, err, root)
	}
	bare := t.TempDir()
	if got, _ := FindRoot(bare); got != bare {
		t.Fatalf("FindRoot without .git = %q, want %q", got, bare)
	}
	// A feature's worktree (.git is a file there) belongs to the project
	// whose database holds the feature; without one it is its own root.
	wt := filepath.Join(root, ".flow", "worktrees", "f1")
	os.MkdirAll(filepath.Join(wt, "pkg"), 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: elsewhere\n"), 0o644)
	if got, _ := FindRoot(filepath.Join(wt, "pkg")); got != wt {
		t.Fatalf("FindRoot in a worktree of no project = %q, want %q", got, wt)
	}
	os.WriteFile(filepath.Join(root, DBFile), nil, 0o644)
	if got, _ := FindRoot(filepath.Join(wt, "pkg")); got != root {
		t.Fatalf("FindRoot in a feature worktree = %q, want the project %q", got, root)
	}
}

func TestDocsCannotEscapeFlowDir(t *testing.T) {
	st := newStore(t)
	// A goal full of path tricks still makes a kebab-case id.
	out := mustDo(t, st, model.PlanStart{Goal: "../../etc/passwd; rm -rf / \x00 ..\\.."})
	if !model.ValidSessionID(out.Session.ID) || strings.Contains(out.Session.ID, "..") {
		t.Fatalf("session id %q", out.Session.ID)
	}
	// Feature ids with path elements never pass plan validation.
	_, err := st.Do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "../x", Title: "x"}}}}, "t", t0)
	if e, ok := model.AsError(err); !ok || e.Code != model.CodePlanInvalidID {
		t.Fatalf("plan with ../x: %v", err)
	}
	// And the writer itself refuses a crafted session.
	evil := &model.Session{ID: "../../evil"}
	if err := st.WriteDocs(evil); err == nil {
		t.Fatal("WriteDocs accepted a session id with path elements")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(st.Dir()), "..", "evil")); !os.IsNotExist(err) {
		t.Fatal("a file was written outside .flow")
	}
}

// A snapshot holds what the separate reads return, from one transaction.
func TestSnapshotMatchesSeparateReads(t *testing.T) {
	st := newStore(t)
	mustDo(t, st, model.PlanStart{Goal: "snap"})
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	writeRun(t, st, []string{"a"}, "", []string{"one"})
	writeRun(t, st, []string{"b"}, "", []string{"two"})
	if err := st.RecordAgentEvent(model.AgentEvent{Agent: "opencode", Event: "idle", At: t0}); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	active, _ := st.Active()
	sessions, _ := st.Sessions()
	runs, _ := st.Runs(1)
	agents, _ := st.AgentEvents()
	got, _ := json.Marshal([]any{snap.Active, snap.Sessions, snap.Runs, snap.Agents})
	want, _ := json.Marshal([]any{active, sessions, runs, agents})
	if string(got) != string(want) || len(snap.Runs) != 1 || snap.Runs[0].Argv[0] != "b" {
		t.Fatalf("snapshot %s\nreads    %s", got, want)
	}
}
