package db

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// outsideDir is a directory outside the project with one file in it; check
// asserts that nothing in it was created, changed or deleted.
type outsideDir struct {
	dir    string
	before map[string]string
}

func newOutside(t *testing.T) *outsideDir {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("the person's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &outsideDir{dir: dir, before: snapshotDir(t, dir)}
}

func (o *outsideDir) check(t *testing.T) {
	t.Helper()
	after := snapshotDir(t, o.dir)
	if len(after) != len(o.before) {
		t.Fatalf("outside directory changed: %v, was %v", keys(after), keys(o.before))
	}
	for k, v := range o.before {
		if after[k] != v {
			t.Fatalf("outside file %s changed: %q, was %q", k, after[k], v)
		}
	}
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		data, _ := os.ReadFile(p)
		m[p] = string(data)
		return nil
	})
	return m
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// wantEscape asserts err is a path_escapes_project fault naming path.
func wantEscape(t *testing.T, err error, path string) {
	t.Helper()
	f, ok := model.AsFault(err)
	if !ok || f.Code != model.CodePathEscapes {
		t.Fatalf("err = %v, want %s", err, model.CodePathEscapes)
	}
	if !strings.Contains(f.Message, path) || !strings.HasPrefix(f.Path, path) {
		t.Fatalf("fault %q (path %s) does not name %s", f.Message, f.Path, path)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestFlowDirSymlinkOutIsRefused(t *testing.T) {
	project, out := t.TempDir(), newOutside(t)
	symlink(t, out.dir, filepath.Join(project, ".flow"))
	_, err := Open(filepath.Join(project, DBFile), Options{})
	wantEscape(t, err, filepath.Join(project, ".flow"))
	out.check(t)
}

func TestDatabaseSymlinkOutIsRefused(t *testing.T) {
	for _, name := range []string{"flowdeck.db", "flowdeck.db.lock"} {
		for _, dangling := range []bool{true, false} {
			t.Run(name, func(t *testing.T) {
				project, out := t.TempDir(), newOutside(t)
				if name == "flowdeck.db.lock" { // the lock is used once the database exists
					if _, err := Open(filepath.Join(project, DBFile), Options{}); err != nil {
						t.Fatal(err)
					}
				}
				target := filepath.Join(out.dir, "notes.md")
				if dangling {
					target = filepath.Join(out.dir, "created-by-flowdeck")
				}
				link := filepath.Join(project, ".flow", name)
				symlink(t, target, link)
				_, err := Open(filepath.Join(project, DBFile), Options{})
				wantEscape(t, err, link)
				out.check(t)
			})
		}
	}
}

// The attack: a link at .flow/sessions, docs or docs/features made
// flow note delete the *.md files it pointed at and write docs there.
func TestDocsDirSymlinkOutRefusesTheAction(t *testing.T) {
	for _, rel := range []string{"sessions", "sessions/ID", "sessions/ID/docs", "sessions/ID/docs/features"} {
		t.Run(rel, func(t *testing.T) {
			st, out := newStore(t), newOutside(t)
			sess := mustDo(t, st, model.PlanStart{Goal: "g"}).Session
			mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
			link := filepath.Join(st.Dir(), filepath.FromSlash(strings.Replace(rel, "ID", sess.ID, 1)))
			symlink(t, out.dir, link)
			_, err := st.Do(model.AddNote{Text: "hi"}, "tester", t0)
			wantEscape(t, err, link)
			out.check(t)
			after, _ := st.Active()
			if len(after.Notes) != 0 {
				t.Fatalf("the refused note was stored: %v", after.Notes)
			}
		})
	}
}

func TestSessionsSymlinkOutRefusesANewSession(t *testing.T) {
	st, out := newStore(t), newOutside(t)
	link := filepath.Join(st.Dir(), "sessions")
	symlink(t, out.dir, link)
	_, err := st.Do(model.PlanStart{Goal: "g"}, "tester", t0)
	wantEscape(t, err, link)
	out.check(t)
	if s, _ := st.Active(); s != nil {
		t.Fatalf("the refused session was stored: %s", s.ID)
	}
}

// A feature doc replaced by a link out is replaced by a file again (by an
// action that changes the doc); the file the link pointed at is untouched.
func TestFeatureDocSymlinkIsReplacedNotFollowed(t *testing.T) {
	st, out := newStore(t), newOutside(t)
	sess := mustDo(t, st, model.PlanStart{Goal: "g"}).Session
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	// Cleanup leaves a link alone (flowdeck never wrote one), and what it
	// points at.
	b := filepath.Join(st.DocsDir(sess.ID), "features", "b.md")
	symlink(t, filepath.Join(out.dir, "notes.md"), b)
	mustDo(t, st, model.PlanSelect{FeatureIDs: []string{"a"}})
	out.check(t)
	if fi, err := os.Lstat(b); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("b.md link: %v, %v", fi, err)
	}
	mustDo(t, st, model.PlanApprove{})
	doc := filepath.Join(st.DocsDir(sess.ID), "features", "a.md")
	symlink(t, filepath.Join(out.dir, "notes.md"), doc)
	mustDo(t, st, model.RunStart{Feature: "a"})
	out.check(t)
	if fi, err := os.Lstat(doc); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("a.md after refresh: %v, %v", fi, err)
	}
	// A manifest replaced by a link out is replaced by a file, unread,
	// even by an action that changes no feature doc.
	manifest := filepath.Join(st.DocsDir(sess.ID), "features", manifestName)
	symlink(t, filepath.Join(out.dir, "notes.md"), manifest)
	mustDo(t, st, model.AddNote{Text: "again"})
	out.check(t)
	if fi, err := os.Lstat(manifest); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("manifest after refresh: %v, %v", fi, err)
	}
}

// Cleanup removes only the docs flowdeck recorded writing, and only while
// they are unchanged.
func TestStaleDocCleanupRemovesOnlyWhatItWrote(t *testing.T) {
	st := newStore(t)
	sess := mustDo(t, st, model.PlanStart{Goal: "g"}).Session
	features := filepath.Join(st.DocsDir(sess.ID), "features")
	plan := twoFeaturePlan()
	plan.Features = append(plan.Features, model.Feature{ID: "c", Title: "C"})
	mustDo(t, st, model.PlanApply{Plan: plan})
	mine := filepath.Join(features, "mine.md")
	os.WriteFile(mine, []byte("a person's file"), 0o644)
	os.WriteFile(filepath.Join(features, "c.md"), []byte("edited by the person"), 0o644)
	// A manifest edited to name other files names nothing flowdeck removes.
	manifest := filepath.Join(features, manifestName)
	data, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, append(data, "../../../../mine x\nmine "+docSum("a person's file")[:10]+"\n/etc/passwd\n"...), 0o644)
	mustDo(t, st, model.PlanSelect{FeatureIDs: []string{"a"}})
	if _, err := os.Stat(filepath.Join(features, "b.md")); !os.IsNotExist(err) {
		t.Fatalf("b.md, which flowdeck wrote, is still there: %v", err)
	}
	for _, keep := range []string{"a.md", "c.md", "mine.md"} {
		if _, err := os.Stat(filepath.Join(features, keep)); err != nil {
			t.Fatalf("%s: %v", keep, err)
		}
	}
}

func TestRunLockDirSymlinkOutRefusesTheRun(t *testing.T) {
	project, out := t.TempDir(), newOutside(t)
	st, err := Open(filepath.Join(project, DBFile), Options{})
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(st.Dir(), "runs")
	symlink(t, out.dir, link)
	_, err = st.StartRun(model.RunRecord{ID: NewRunID(time.Now()), Argv: []string{"true"}, Start: time.Now(), Actor: "test"})
	wantEscape(t, err, link)
	out.check(t)
}
