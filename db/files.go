package db

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flowdeck/flowdeck/internal/contain"
)

// Files other packages keep under .flow (flow-run locks, temporary prompt
// and script files) go through these, so they too are resolved beneath the
// project directory: a symlink out of it is a path_escapes_project fault.

// OpenFile opens name, relative to the .flow directory, beneath the project.
// With os.O_CREATE its directory is made first.
func (s *Store) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	r, err := contain.Open(s.project)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rel := filepath.Join(s.flowRel, name)
	if flag&os.O_CREATE != 0 {
		if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return nil, contain.Fault(s.project, err)
		}
	}
	f, err := r.OpenFile(rel, flag, perm)
	if err != nil {
		return nil, contain.Fault(s.project, err)
	}
	return f, nil
}

// CreateTemp creates a new file in dir, relative to .flow (made with perm
// dirPerm if missing), named by pattern as os.CreateTemp does. The file's
// Name is its full path.
func (s *Store) CreateTemp(dir string, dirPerm fs.FileMode, pattern string) (*os.File, error) {
	r, err := contain.Open(s.project)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rel := filepath.Join(s.flowRel, dir)
	if err := r.MkdirAll(rel, dirPerm); err != nil {
		return nil, contain.Fault(s.project, err)
	}
	f, _, err := contain.CreateTemp(r, rel, pattern, 0o600)
	return f, err
}

// Remove deletes path, a full path inside the project, beneath the project:
// a directory on the way that became a symlink out is not followed.
func (s *Store) Remove(path string) error {
	rel, err := filepath.Rel(s.project, path)
	if err != nil || !filepath.IsLocal(rel) {
		return contain.Escape(s.project, path, fmt.Errorf("%s is not inside %s", path, s.project))
	}
	r, err := contain.Open(s.project)
	if err != nil {
		return err
	}
	defer r.Close()
	return contain.Fault(s.project, r.Remove(rel))
}

// ReadDoc reads rel (index.md, features/ID.md) of a session's docs beneath
// the project, so a doc replaced by a link out of it is not read.
func (s *Store) ReadDoc(sessionID, rel string) ([]byte, error) {
	r, err := contain.Open(s.project)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := r.ReadFile(filepath.Join(s.docsRel(sessionID), rel))
	return data, contain.Fault(s.project, err)
}
