package db

import "github.com/flowdeck/flowdeck/internal/rootdir"

// DBFile is the database's path below a project root.
const DBFile = rootdir.DBFile

// FindRoot returns the project root for dir: the nearest directory upward
// that holds .git or .flow (a feature worktree's owning project), or dir
// itself when there is none. See rootdir.Find.
func FindRoot(dir string) (string, error) { return rootdir.Find(dir) }
