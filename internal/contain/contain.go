// Package contain keeps flowdeck's writes inside the project directory. Every
// write, rename and delete goes through an os.Root opened on the project, so
// the kernel resolves each path component beneath it (no check-then-use race
// as with filepath tests); a path that would leave it, through a symlink or
// "..", becomes a path_escapes_project fault naming the path. Files the
// person names on the command line, inside the project or out, are opened
// here too (named.go): regular files only, never blocking on a FIFO.
package contain

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/model"
)

// escapeText is the text of os.Root's refusal. The sentinel itself is not
// exported, so this is how it is recognised.
const escapeText = "path escapes from parent"

// Escapes reports whether err is an os.Root refusing a path that leads out of
// its directory.
func Escapes(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == escapeText {
			return true
		}
	}
	return false
}

// Fault turns an escape refusal from a root on dir into a path_escapes_project
// fault naming the full path; any other error is returned as it is.
func Fault(dir string, err error) error {
	if err == nil || !Escapes(err) {
		return err
	}
	if _, ok := model.AsFault(err); ok {
		return err
	}
	rel := ""
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		rel = pe.Path
	case errors.As(err, &le):
		rel = le.New
	}
	return Escape(dir, rel, err)
}

// Escape is the path_escapes_project fault for rel below dir.
func Escape(dir, rel string, cause error) *model.Fault {
	path := rel
	if !filepath.IsAbs(rel) {
		path = filepath.Join(dir, filepath.FromSlash(rel))
	}
	return &model.Fault{
		Code:    model.CodePathEscapes,
		Path:    path,
		Message: fmt.Sprintf("%s leads outside the project directory %s; flowdeck writes nothing through it", path, dir),
		Hint:    "remove the symlink, or make it a relative link that stays inside the project (an absolute link to a directory counts as leaving it), and try again",
		Err:     cause,
	}
}

// Open opens dir as a root. Errors name dir.
func Open(dir string) (*os.Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open project directory: %w", err)
	}
	return r, nil
}

// CreateTemp creates a new file in dir (below r) named by pattern, whose
// last "*" is replaced by a random string (appended when there is none), as
// os.CreateTemp does; it returns the file and its name relative to r.
func CreateTemp(r *os.Root, dir, pattern string, perm fs.FileMode) (*os.File, string, error) {
	if strings.ContainsRune(pattern, os.PathSeparator) {
		return nil, "", fmt.Errorf("temporary file pattern %q contains a path separator", pattern)
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 10 {
		var b [8]byte
		rand.Read(b[:])
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:])+suffix)
		f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", Fault(r.Name(), err)
		}
		return f, name, nil
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many collisions", filepath.Join(r.Name(), dir))
}

// WriteAtomic writes data to name below r through a temporary file renamed
// over it, so a reader never sees half a file. The rename replaces whatever
// name is, a symlink included, and never writes through one.
func WriteAtomic(r *os.Root, name string, data []byte, perm fs.FileMode) error {
	f, tmp, err := CreateTemp(r, filepath.Dir(name), ".tmp-", perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	merr := f.Chmod(perm) // exactly perm, whatever the umask
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		r.Remove(tmp)
		return err
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return Fault(r.Name(), err)
	}
	return nil
}

// ResolveLinks follows symlinks at name (relative to r) to the name of the
// file they lead to, still relative to r. A link that leads outside the root
// is a path_escapes_project fault; a name that is not a link is returned as
// it is. An absolute link target is judged against the root's name, as
// given and with its own symlinks resolved.
func ResolveLinks(r *os.Root, name string) (string, error) {
	bases := []string{r.Name()}
	if real, err := filepath.EvalSymlinks(r.Name()); err == nil && real != r.Name() {
		bases = append(bases, real)
	}
	for range 40 { // the kernel's own limit on a chain of links
		fi, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", Fault(r.Name(), err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		target, err := r.Readlink(name)
		if err != nil {
			return "", Fault(r.Name(), err)
		}
		next := filepath.Join(filepath.Dir(name), target)
		if filepath.IsAbs(target) {
			next = ".."
			for _, base := range bases {
				if rel, err := filepath.Rel(base, target); err == nil && !outside(rel) {
					next = rel
					break
				}
			}
		}
		if outside(next) {
			return "", Escape(r.Name(), name, errors.New(escapeText))
		}
		name = next
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", filepath.Join(r.Name(), name))
}

func outside(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
