package db

import (
	"os"
	"path/filepath"
)

// DBFile is the database's path below a project root.
const DBFile = ".flow/flowdeck.db"

// FindRoot returns the project root for dir: the nearest directory upward
// that holds .git, or dir itself when there is none.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}
