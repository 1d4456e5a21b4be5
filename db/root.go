package db

import (
	"os"
	"path/filepath"
)

// DBFile is the database's path below a project root.
const DBFile = ".flow/flowdeck.db"

// FindRoot returns the project root for dir: the nearest directory upward
// that holds .git or .flow, or dir itself when there is none. Every entry
// point (CLI, hud, MCP server, plugins, hooks) finds the project this way,
// so an agent started in a subdirectory uses the same database as one
// started at the root.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		for _, mark := range []string{".git", ".flow"} {
			if _, err := os.Stat(filepath.Join(d, mark)); err == nil {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}
