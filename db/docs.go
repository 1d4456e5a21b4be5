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

// refreshDocs renders a session's docs. They are derived, never read back as
// state, so a failure is reported on stderr and does not fail the action.
func (s *Store) refreshDocs(sess *model.Session) {
	if err := s.WriteDocs(sess); err != nil {
		fmt.Fprintf(os.Stderr, "flowdeck: refresh docs of %s: %v\n", sess.ID, err)
	}
}

// WriteDocs writes index.md and one file per feature, atomically, and removes
// the docs of features that left the plan.
func (s *Store) WriteDocs(sess *model.Session) error {
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
	keep := map[string]bool{}
	for _, id := range model.DocFeatureIDs(sess) { // valid ids only: safe as file names
		keep[id+".md"] = true
		if err := writeAtomic(filepath.Join(featDir, id+".md"), model.RenderFeature(sess, sess.Plan.Feature(id))); err != nil {
			return err
		}
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
