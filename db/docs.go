package db

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"flowdeck/internal/contain"
	"flowdeck/model"
)

// manifestName lists, one per line, the feature docs flowdeck wrote into a
// session's docs/features directory and the digest of each. Cleanup removes
// only those, so whatever else a person or an agent puts there (or links
// there) is never deleted.
const manifestName = ".flowdeck-written"

// DocsDir is where a session's rendered markdown lives. Ids are validated
// kebab-case, so the path cannot leave .flow/.
func (s *Store) DocsDir(sessionID string) string {
	return filepath.Join(s.Dir(), "sessions", sessionID, "docs")
}

// docsRel is DocsDir relative to the project root.
func (s *Store) docsRel(sessionID string) string {
	return filepath.Join(s.flowRel, "sessions", sessionID, "docs")
}

// refreshDocs renders a session's docs. They are derived, never read back as
// state, so a failure is reported on stderr and does not fail the action.
func (s *Store) refreshDocs(sess *model.Session) {
	if err := s.WriteDocs(sess); err != nil {
		fmt.Fprintf(os.Stderr, "flowdeck: refresh docs of %s: %v\n", sess.ID, err)
	}
}

// checkDocsDirs makes the docs directories of the sessions an action
// touched, inside the transaction and before it commits: a directory that
// leads out of the project (a symlink at .flow/sessions, docs or features)
// refuses the action with nothing stored and nothing written.
func (s *Store) checkDocsDirs(r *os.Root, sessions []*model.Session) error {
	for _, sess := range sessions {
		if !model.ValidSessionID(sess.ID) {
			continue // WriteDocs refuses it and says so
		}
		if err := r.MkdirAll(filepath.Join(s.docsRel(sess.ID), "features"), 0o755); err != nil {
			return contain.Fault(s.project, err)
		}
	}
	return nil
}

// WriteDocs writes index.md and one file per feature, atomically, and removes
// the docs of features that left the plan: only those flowdeck recorded
// writing. Every path is resolved beneath the project directory.
func (s *Store) WriteDocs(sess *model.Session) error {
	if !model.ValidSessionID(sess.ID) {
		return fmt.Errorf("refusing to write docs for session id %q", sess.ID)
	}
	r, err := contain.Open(s.project)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := s.docsRel(sess.ID)
	if err := r.MkdirAll(filepath.Join(dir, "features"), 0o755); err != nil {
		return contain.Fault(s.project, err)
	}
	// A root on the features directory (opened beneath the project) resolves
	// each doc's name in one step instead of six.
	feat, err := r.OpenRoot(filepath.Join(dir, "features"))
	if err != nil {
		return contain.Fault(s.project, err)
	}
	defer feat.Close()
	if err := writeDoc(r, filepath.Join(dir, "index.md"), model.RenderIndex(sess)); err != nil {
		return err
	}
	written := map[string]string{}                 // feature id -> digest of its doc
	for _, id := range model.DocFeatureIDs(sess) { // valid ids only: safe as file names
		doc := model.RenderFeature(sess, sess.Plan.Feature(id))
		if err := writeDoc(feat, id+".md", doc); err != nil {
			return err
		}
		written[id] = digest(doc)
	}
	return removeStale(feat, written)
}

// removeStale deletes the docs the manifest lists that are not in keep, then
// records what was written as the new manifest. A listed doc is removed only
// while it is still the regular file flowdeck wrote (same SHA-256): an edited
// doc, a link, or a name added to the manifest by someone else stays.
func removeStale(r *os.Root, written map[string]string) error {
	manifest := manifestName
	old, err := r.ReadFile(manifest)
	if contain.Escapes(err) {
		old = nil // a link put in its place: replaced below, never followed
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return contain.Fault(r.Name(), err)
	}
	for _, line := range strings.Split(string(old), "\n") {
		id, sum, _ := strings.Cut(line, " ")
		if _, kept := written[id]; kept || !model.ValidFeatureID(id) {
			continue
		}
		name := id + ".md"
		if fi, err := r.Lstat(name); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if data, err := r.ReadFile(name); err != nil || digest(string(data)) != sum {
			continue
		}
		if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return contain.Fault(r.Name(), err)
		}
	}
	lines := make([]string, 0, len(written))
	for id, sum := range written {
		lines = append(lines, id+" "+sum)
	}
	slices.Sort(lines)
	return writeDoc(r, manifest, strings.Join(lines, "\n")+"\n")
}

func digest(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// writeDoc writes name below r atomically. Unchanged content is not
// rewritten, which keeps file watchers quiet.
func writeDoc(r *os.Root, name, content string) error {
	if old, err := r.ReadFile(name); err == nil && string(old) == content {
		return nil
	}
	return contain.WriteAtomic(r, name, []byte(content), 0o644)
}
