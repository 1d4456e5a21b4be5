package contain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/flowdeck/flowdeck/model"
)

// Files the person names on the command line: export's target, the input
// of import and flow plan apply, the sample of patterns test. Any file is
// theirs to name, inside the project or not, but an agent can plant a
// symlink or a FIFO where they expect a file: a link in the project that
// leads out of it is refused, so is anything but a regular file, and
// nothing here blocks in open(2).

// openFlags go on every open here. O_NONBLOCK: opening a FIFO (or a device
// that waits for a carrier) returns at once instead of waiting for a
// writer. O_NOCTTY: opening a terminal cannot make it flowdeck's
// controlling terminal. Neither changes anything for a regular file.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// maxLinks is the kernel's own limit on a chain of symlinks.
const maxLinks = 40

// NotRegular is the not_regular_file fault for path, a file of mode.
func NotRegular(path string, mode fs.FileMode) *model.Fault {
	f := &model.Fault{
		Code:    model.CodeNotRegularFile,
		Path:    path,
		Message: fmt.Sprintf("%s is %s, not a regular file: flowdeck neither reads from nor writes to it", path, kind(mode)),
		Hint:    "name a regular file instead (a pipe or device you did not make was put there by something else: look at it before you remove it)",
	}
	if mode&fs.ModeSymlink != 0 {
		f.Message = path + " is a symbolic link: flowdeck does not follow a link here, nor write through one"
		f.Hint = "name the file itself or another file, or remove the link and try again"
	}
	return f
}

// kind names what a file of mode is, for a person.
func kind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode.IsDir():
		return "a directory"
	}
	return "a special file"
}

// OpenRegular opens name below r with flag and perm (os.OpenFile's), and
// only if it is a regular file; anything else is a not_regular_file fault
// naming it, found without blocking: Lstat sees a FIFO or device, which is
// then never opened, and one swapped in before the open is opened with
// O_NONBLOCK|O_NOCTTY and closed unread. A symlink at name is refused
// (not_regular_file), not followed, and the file opened is checked to be
// the one Lstat saw, so a link swapped in between is caught too; O_TRUNC
// truncates only after that check. With O_CREATE a missing file is created
// with O_EXCL, which follows no link. Directories on the way are resolved
// by r: a link among them that leaves r is path_escapes_project. Other
// errors name the file by its full path.
//
// It is also how to append to a file inside a directory without following
// a link there, e.g. on a root opened on .git:
//
//	OpenRegular(r, "info/exclude", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
func OpenRegular(r *os.Root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	path := filepath.Join(r.Name(), name)
	trunc := flag&os.O_TRUNC != 0
	flag &^= os.O_TRUNC
	for range 10 {
		seen, err := r.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
			f, err := r.OpenFile(name, flag|os.O_EXCL|openFlags, perm)
			if errors.Is(err, fs.ErrExist) && flag&os.O_EXCL == 0 {
				continue // made meanwhile: look at it
			}
			if err != nil {
				return nil, fullPath(path, Fault(r.Name(), err))
			}
			return f, nil // new, made by this open: a regular file
		case err != nil:
			return nil, fullPath(path, Fault(r.Name(), err))
		case !seen.Mode().IsRegular(): // a symlink included
			return nil, NotRegular(path, seen.Mode())
		}
		f, err := r.OpenFile(name, flag|openFlags, perm)
		if err != nil {
			return nil, fullPath(path, Fault(r.Name(), err))
		}
		got, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("stat %s: %w", path, err)
		}
		if !got.Mode().IsRegular() {
			f.Close()
			return nil, NotRegular(path, got.Mode())
		}
		if !os.SameFile(seen, got) {
			f.Close()
			continue // swapped between Lstat and open: look again
		}
		if trunc {
			if err := f.Truncate(0); err != nil {
				f.Close()
				return nil, fmt.Errorf("truncate %s: %w", path, err)
			}
		}
		return f, nil
	}
	return nil, fmt.Errorf("open %s: it keeps changing while flowdeck opens it", path)
}

// fullPath makes an os.Root error, which names the file below the root,
// name it by path; a fault names its path already.
func fullPath(path string, err error) error {
	var pe *fs.PathError
	if _, ok := model.AsFault(err); ok || !errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
}

// locate finds where the file the person named lies: beneath the project
// directory root when some directory on its way is root itself (however
// it is spelt: a symlink outside, another mount of it), else in a
// directory outside. It returns a root opened on that directory and the
// name below it. Symlinks outside the project are the person's say-so and
// are followed, the last one only when follow; once the walk reaches root
// it stops, and r resolves the rest beneath root, so a link there that
// leads out is refused when the file is opened.
func locate(root, name string, follow bool) (r *os.Root, rel string, inside bool, err error) {
	top, err := os.Stat(root)
	if err != nil {
		return nil, "", false, fmt.Errorf("project directory: %w", err)
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, "", false, err
	}
	sep := string(filepath.Separator)
	cur, todo := sep, split(abs)
	links := 0
	for {
		if fi, err := os.Stat(cur); err == nil && os.SameFile(fi, top) {
			r, err := Open(root)
			return r, filepath.Join(append([]string{"."}, todo...)...), true, err
		}
		if len(todo) == 0 { // a directory: refused when opened
			r, err := os.OpenRoot(cur)
			return r, ".", false, err
		}
		c := todo[0]
		todo = todo[1:]
		next := filepath.Join(cur, c)
		if c == "." || c == ".." { // from a link's target; cur has no links, so ".." is its parent
			cur = next
			continue
		}
		last := len(todo) == 0
		fi, err := os.Lstat(next)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 && (follow || !last) {
			if links++; links > maxLinks {
				return nil, "", false, fmt.Errorf("%s: too many levels of symbolic links", abs)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return nil, "", false, err
			}
			if filepath.IsAbs(target) {
				cur = sep
			}
			todo = append(split(target), todo...)
			continue
		}
		if last || err != nil { // the file itself, or a missing directory: its open says so
			r, err := os.OpenRoot(cur)
			return r, filepath.Join(append([]string{c}, todo...)...), false, err
		}
		cur = next
	}
}

// split is path's components, without empty ones.
func split(path string) []string {
	return strings.FieldsFunc(path, func(r rune) bool { return r == filepath.Separator })
}

// named makes err, from opening the file the person named as name, name
// that file as they wrote it; a fault names its path already.
func named(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := model.AsFault(err); ok {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return fmt.Errorf("%s %s: %w", op, name, err)
}

// OpenNamed opens for reading the file the person named as name (absolute,
// or relative to the working directory), in the project directory root or
// anywhere else. Refused, as faults naming the path: a symlink in the
// project that leads out of it (path_escapes_project), and anything but a
// regular file (not_regular_file). It never blocks on a FIFO or device.
// Other errors (a missing file, no permission) name the file as written.
func OpenNamed(root, name string) (*os.File, error) {
	r, rel, inside, err := locate(root, name, true)
	if err != nil {
		return nil, named("open", name, err)
	}
	defer r.Close() // the file keeps its own descriptor
	if inside {
		if rel, err = ResolveLinks(r, rel); err != nil {
			return nil, forReading(named("open", name, err))
		}
	}
	f, err := OpenRegular(r, rel, os.O_RDONLY, 0)
	return f, forReading(named("open", name, err))
}

// forReading words an escape refusal for a file flowdeck would read.
func forReading(err error) error {
	if f, ok := model.AsFault(err); ok && f.Code == model.CodePathEscapes {
		f.Message = strings.Replace(f.Message, "flowdeck writes nothing through it", "flowdeck reads nothing through it", 1)
	}
	return err
}

// Output is a file being written where the person named it. Close finishes
// it; Abort takes back what was written.
type Output struct {
	*os.File
	r    *os.Root
	name string // below r
	tmp  string // below r, renamed over name by Close; "" when written in place
	path string // the file, for errors
	done bool
}

// CreateNamed opens for writing a new file where the person named it
// (absolute, or relative to the working directory), in the project
// directory root or anywhere else, with perm (the umask applies). An
// existing file is refused (file_exists) unless force, and then it is
// replaced whole by Close: the export goes to a temporary file beside it,
// renamed over it, so the old file stays as it was until the new one is
// complete. A symlink at name is refused with or without force (nothing is
// written through a link, inside the project or out), as is anything but a
// regular file (not_regular_file); a new file is created with O_EXCL, which
// follows no link. Directories on the way are resolved as OpenNamed does.
func CreateNamed(root, name string, force bool, perm fs.FileMode) (*Output, error) {
	r, rel, inside, err := locate(root, name, false)
	if err != nil {
		return nil, named("create", name, err)
	}
	o, err := createIn(r, rel, inside, force, perm)
	if err != nil {
		r.Close()
		return nil, named("create", name, err)
	}
	return o, nil
}

// createIn is CreateNamed below r; inside says r is the project's root.
func createIn(r *os.Root, rel string, inside, force bool, perm fs.FileMode) (*Output, error) {
	path := filepath.Join(r.Name(), rel)
	for range 10 {
		fi, err := r.Lstat(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openFlags, perm)
			if errors.Is(err, fs.ErrExist) {
				continue // made meanwhile: look at it
			}
			if err != nil {
				return nil, Fault(r.Name(), err)
			}
			return &Output{File: f, r: r, name: rel, path: path}, nil
		case err != nil:
			return nil, Fault(r.Name(), err)
		case fi.Mode()&fs.ModeSymlink != 0 && inside:
			// Refused either way; a link that leaves the project is the
			// planted kind, and says so.
			if _, err := ResolveLinks(r, rel); err != nil {
				if f, ok := model.AsFault(err); ok {
					f.Hint = "remove the link or name another file: flowdeck writes nothing through a link, inside the project or out"
				}
				return nil, err
			}
			return nil, NotRegular(path, fi.Mode())
		case !fi.Mode().IsRegular():
			return nil, NotRegular(path, fi.Mode())
		case !force:
			return nil, &model.Fault{
				Code:    model.CodeFileExists,
				Path:    path,
				Message: path + " exists; flowdeck does not overwrite it",
				Hint:    "name a new file, or add --force to replace this one (it is replaced whole, never written through)",
			}
		}
		// A rename replaces whatever is at rel by then, a link or a FIFO
		// swapped in included, and never writes through it.
		f, tmp, err := CreateTemp(r, filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-*", perm)
		if err != nil {
			return nil, err
		}
		return &Output{File: f, r: r, name: rel, tmp: tmp, path: path}, nil
	}
	return nil, fmt.Errorf("create %s: it keeps changing while flowdeck creates it", path)
}

// Close finishes the file: closes it and, when it replaces one, renames it
// into place.
func (o *Output) Close() error {
	if o.done {
		return nil
	}
	o.done = true
	defer o.r.Close()
	if err := o.File.Close(); err != nil {
		if o.tmp != "" {
			o.r.Remove(o.tmp)
		}
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if o.tmp == "" {
		return nil
	}
	if err := o.r.Rename(o.tmp, o.name); err != nil {
		o.r.Remove(o.tmp)
		return fmt.Errorf("replace %s: %w", o.path, Fault(o.r.Name(), err))
	}
	return nil
}

// Abort closes the file and removes what was written: the temporary file,
// or the new file (when it is still the one created; a file --force would
// have replaced is left as it was).
func (o *Output) Abort() {
	if o.done {
		return
	}
	o.done = true
	defer o.r.Close()
	made, _ := o.File.Stat()
	o.File.Close()
	if o.tmp != "" {
		o.r.Remove(o.tmp)
		return
	}
	if now, err := o.r.Lstat(o.name); err == nil && made != nil && os.SameFile(made, now) {
		o.r.Remove(o.name)
	}
}
