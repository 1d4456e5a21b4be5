// Package rootdir finds a project's root directory and its database. It is
// its own package so that the lean flowdeck binary finds the project the
// same way as every other entry point without linking the store.
package rootdir

import (
	"errors"
	"os"
	"path/filepath"
)

// DBFile is the database's path below a project root.
const DBFile = ".flow/flowdeck.db"

// ownerOfWorktree is the project a feature worktree (.flow/worktrees/F,
// whose .git is a file) belongs to, so that an agent working in it uses the
// project's database; any other directory is its own root.
func ownerOfWorktree(d string) string {
	parent := filepath.Dir(d)
	if filepath.Base(parent) != "worktrees" || filepath.Base(filepath.Dir(parent)) != ".flow" {
		return d
	}
	owner := filepath.Dir(filepath.Dir(parent))
	if _, err := os.Stat(filepath.Join(owner, DBFile)); err != nil {
		return d
	}
	return owner
}

// Find returns the project root for dir: the nearest directory upward that
// holds .git or .flow, or dir itself when there is none. Every entry point
// (CLI, hud, MCP server, plugins, hooks) finds the project this way, so an
// agent started in a subdirectory uses the same database as one started at
// the root.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		for _, mark := range []string{".git", ".flow"} {
			if _, err := os.Stat(filepath.Join(d, mark)); err == nil {
				return ownerOfWorktree(d), nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}

// ErrNotDir is a directory named as the root (--dir) that is not one.
var ErrNotDir = errors.New("not a directory")

// Resolve is the project root every entry point uses: dir itself when
// asRoot (--dir; it must be a directory, else ErrNotDir), else Find from
// dir ("": the working directory).
func Resolve(dir string, asRoot bool) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	if !asRoot {
		return Find(dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", ErrNotDir
	}
	return filepath.Abs(dir)
}
