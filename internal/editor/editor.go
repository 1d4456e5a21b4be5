// Package editor runs the person's text editor on a temporary file: the
// command line waits for it, the cockpit hands the same command to
// tea.ExecProcess. It also writes and reads back the plan text they edit
// (plan.go), so both front-ends open, annotate and cancel alike.
package editor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/shell"
)

// Fallback is the editor when neither $VISUAL nor $EDITOR is set.
const Fallback = "vi"

// Command is the person's editor on path: $VISUAL, else $EDITOR, else vi.
// The variable may hold arguments ("code --wait"); it is split as a shell
// splits words, with quotes, $VARIABLES and ~ expanded (as git, which hands
// it to sh, would), but nothing run: a command substitution is an error.
// Its standard streams are left unset for the caller.
func Command(path string) (*exec.Cmd, error) {
	name, spec := "$VISUAL", os.Getenv("VISUAL")
	if strings.TrimSpace(spec) == "" {
		name, spec = "$EDITOR", os.Getenv("EDITOR")
	}
	if strings.TrimSpace(spec) == "" {
		name, spec = "the default editor", Fallback
	}
	argv, err := shell.Fields(spec, nil)
	if err != nil {
		return nil, fmt.Errorf("%s (%q) cannot be split into a command: %w", name, spec, err)
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%s (%q) names no command", name, spec)
	}
	cmd := exec.Command(argv[0], append(argv[1:], path)...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("%s (%q): %w", name, spec, cmd.Err)
	}
	return cmd, nil
}

// File is a temporary file the person edits, with what flowdeck last wrote
// into it, so an unchanged save can be told from an edit.
type File struct {
	Path    string
	written []byte
	first   []byte
}

// New writes text into a new file in the temporary directory, readable by
// the person only; pattern is os.CreateTemp's (its extension picks the
// editor's syntax mode).
func New(pattern string, text []byte) (*File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, fmt.Errorf("create the file to edit: %w", err)
	}
	_, werr := f.Write(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("write %s: %w", f.Name(), werr)
	}
	return &File{Path: f.Name(), written: bytes.Clone(text), first: bytes.Clone(text)}, nil
}

// Command is the editor on the file (see Command).
func (f *File) Command() (*exec.Cmd, error) { return Command(f.Path) }

// Read is the file as the person saved it.
func (f *File) Read() ([]byte, error) {
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("read the edited file: %w", err)
	}
	return b, nil
}

// Unchanged reports whether text is what flowdeck last wrote.
func (f *File) Unchanged(text []byte) bool { return bytes.Equal(text, f.written) }

// Edited reports whether text differs from what the file first held: the
// person typed something that a cancel must not throw away.
func (f *File) Edited(text []byte) bool { return !bytes.Equal(text, f.first) }

// Rewrite replaces the file's text for the next round in the editor.
func (f *File) Rewrite(text []byte) error {
	if err := os.WriteFile(f.Path, text, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	f.written = bytes.Clone(text)
	return nil
}

// Remove deletes the file; one already gone is no error.
func (f *File) Remove() error {
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// CommandAt is Command on path opened at line (when line > 0): editors
// that take "+LINE" before the file get it; others open the file.
func CommandAt(path string, line int) (*exec.Cmd, error) {
	cmd, err := Command(path)
	if err != nil || line <= 0 {
		return cmd, err
	}
	switch strings.TrimSuffix(filepath.Base(cmd.Path), ".exe") {
	case "vi", "vim", "nvim", "view", "nano", "emacs", "emacsclient", "micro", "kak", "joe", "mg", "ne":
		n := len(cmd.Args)
		cmd.Args = append(cmd.Args[:n-1:n-1], "+"+strconv.Itoa(line), cmd.Args[n-1])
	}
	return cmd, nil
}
