package db

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"flowdeck/model"
)

// DocsDir is where a session's rendered markdown lives. Ids are validated
// kebab-case, so the path cannot leave .flow/.
func (s *Store) DocsDir(sessionID string) string {
	return filepath.Join(s.Dir(), "sessions", sessionID, "docs")
}

// docsJob is one session an action changed, with what the docs refresh
// needs to render only the docs the action touched.
type docsJob struct {
	session *model.Session
	before  model.DocsBefore
	events  []model.Event
}

// refreshDocs renders the docs an action changed. They are derived, never
// read back as state, so a failure is reported on stderr and does not fail
// the action. When the index is missing (a first write, or someone deleted
// the docs) every doc is rendered again.
func (s *Store) refreshDocs(job docsJob) {
	sess := job.session
	ids, all := model.DocsToRefresh(job.before, sess, job.events)
	if _, err := os.Stat(filepath.Join(s.DocsDir(sess.ID), "index.md")); err != nil {
		all = true
	}
	var err error
	if all {
		err = s.WriteDocs(sess)
	} else {
		err = s.writeDocs(sess, ids, false)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "flowdeck: refresh docs of %s: %v\n", sess.ID, err)
	}
}

// WriteDocs writes index.md and one file per feature, atomically, and removes
// the docs of features that left the plan.
func (s *Store) WriteDocs(sess *model.Session) error {
	return s.writeDocs(sess, model.DocFeatureIDs(sess), true)
}

// writeDocs writes index.md and the docs of the features ids; with prune, it
// also removes the docs of features no longer in the plan.
func (s *Store) writeDocs(sess *model.Session, ids []string, prune bool) error {
	if !model.ValidSessionID(sess.ID) {
		return fmt.Errorf("refusing to write docs for session id %q", sess.ID)
	}
	dir := s.DocsDir(sess.ID)
	featDir := filepath.Join(dir, "features")
	if err := os.MkdirAll(featDir, 0o755); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "index.md"), model.RenderIndex(sess)); err != nil {
		return err
	}
	err := model.RenderFeatures(sess, ids, func(id, doc string) error { // valid ids only: safe as file names
		return writeAtomic(filepath.Join(featDir, id+".md"), doc)
	})
	if err != nil || !prune {
		return err
	}
	keep := map[string]bool{}
	for _, id := range model.DocFeatureIDs(sess) {
		keep[id+".md"] = true
	}
	entries, err := os.ReadDir(featDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".md") && !keep[name] {
			if err := os.Remove(filepath.Join(featDir, name)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// writeAtomic writes a temp file in the same directory and renames it over
// path, so a reader never sees half a file. Unchanged content is not
// rewritten, which keeps file watchers quiet.
func writeAtomic(path, content string) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == content {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
