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

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
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

// docsJob is one session an action changed, with what the docs refresh
// needs to render only the docs the action touched.
type docsJob struct {
	session *model.Session
	before  model.DocsBefore
	events  []model.Event
}

// refreshDocs renders the docs an action changed. They are derived, never
// read back as state, so a failure is reported on stderr and does not fail
// the action.
func (s *Store) refreshDocs(job docsJob) {
	sess := job.session
	ids, all := model.DocsToRefresh(job.before, sess, job.events)
	if all {
		ids = model.DocFeatureIDs(sess)
	}
	if err := s.writeDocs(sess, ids, all); err != nil {
		fmt.Fprintf(os.Stderr, "flowdeck: refresh docs of %s: %v\n", sess.ID, err)
	}
}

// checkDocsDirs makes the docs directories of the sessions an action
// touched, inside the transaction and before it commits: a directory that
// leads out of the project (a symlink at .flow/sessions, docs or features)
// refuses the action with nothing stored and nothing written.
func (s *Store) checkDocsDirs(r *os.Root, jobs []docsJob) error {
	for _, job := range jobs {
		sess := job.session
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
	return s.writeDocs(sess, model.DocFeatureIDs(sess), true)
}

// writeDocs writes index.md and the docs of the features ids and records
// them in the manifest; with prune (ids is then the whole plan) it also
// removes the docs of features no longer in the plan.
func (s *Store) writeDocs(sess *model.Session, ids []string, prune bool) error {
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
	if _, err := r.Lstat(filepath.Join(dir, "index.md")); err != nil && !prune {
		// No index: a first write, or someone deleted the docs. Render
		// every doc, not only those the action touched.
		ids, prune = model.DocFeatureIDs(sess), true
	}
	// A root on the features directory (opened beneath the project) resolves
	// each doc's name in one step instead of six.
	feat, err := r.OpenRoot(filepath.Join(dir, "features"))
	if err != nil {
		return contain.Fault(s.project, err)
	}
	defer feat.Close()
	if _, err := writeDoc(r, filepath.Join(dir, "index.md"), render.RenderIndex(sess)); err != nil {
		return err
	}
	// written maps a feature id to the digest of its doc; changed counts
	// the docs whose file this call replaced.
	written, changed := map[string]string{}, 0
	err = render.RenderFeatures(sess, ids, func(id, doc string) error { // valid ids: safe file names
		written[id] = docSum(doc)
		wrote, err := writeDoc(feat, id+".md", doc)
		if wrote {
			changed++
		}
		return err
	})
	if err != nil {
		return err
	}
	if !prune && changed == 0 {
		// Nothing new to record: reading and rewriting the manifest would
		// cost every action on a large plan for nothing (unless something
		// replaced the manifest itself, e.g. with a link: rewrite it).
		if fi, err := feat.Lstat(manifestName); err == nil && fi.Mode().IsRegular() {
			return nil
		}
	}
	old, err := readManifest(feat)
	if err != nil {
		return err
	}
	if !prune {
		for id, sum := range written {
			old[id] = sum
		}
		return writeManifest(feat, old)
	}
	if err := removeStale(feat, old, written); err != nil {
		return err
	}
	return writeManifest(feat, written)
}

// readManifest reads the features directory's manifest: feature id ->
// digest of the doc flowdeck wrote.
func readManifest(r *os.Root) (map[string]string, error) {
	data, err := r.ReadFile(manifestName)
	if contain.Escapes(err) {
		data = nil // a link put in its place: replaced on write, never followed
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, contain.Fault(r.Name(), err)
	}
	entries := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if id, sum, ok := strings.Cut(line, " "); ok && model.ValidFeatureID(id) {
			entries[id] = sum
		}
	}
	return entries, nil
}

func writeManifest(r *os.Root, entries map[string]string) error {
	lines := make([]string, 0, len(entries))
	for id, sum := range entries {
		lines = append(lines, id+" "+sum)
	}
	slices.Sort(lines)
	_, err := writeDoc(r, manifestName, strings.Join(lines, "\n")+"\n")
	return err
}

// removeStale deletes the docs the manifest lists that were not written
// now. A listed doc is removed only while it is still the regular file
// flowdeck wrote (same SHA-256): an edited doc, a link, or a name added to
// the manifest by someone else stays.
func removeStale(r *os.Root, manifest, written map[string]string) error {
	for id, sum := range manifest {
		if _, kept := written[id]; kept {
			continue
		}
		name := id + ".md"
		if fi, err := r.Lstat(name); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if data, err := r.ReadFile(name); err != nil || docSum(string(data)) != sum {
			continue
		}
		if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return contain.Fault(r.Name(), err)
		}
	}
	return nil
}

func docSum(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// writeDoc writes name below r atomically. Unchanged content is not
// rewritten, which keeps file watchers quiet.
func writeDoc(r *os.Root, name, content string) (wrote bool, err error) {
	if old, err := r.ReadFile(name); err == nil && string(old) == content {
		return false, nil
	}
	return true, contain.WriteAtomic(r, name, []byte(content), 0o644)
}
