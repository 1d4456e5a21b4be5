package gitwork

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// What an agent commits is hostile input: a merge into the integration
// branch and a land into the person's checkout must never carry a change to
// what is not the project's code (flowdeck's own .flow directory, files the
// person's checkout ignores), nor overwrite a file the person has and git
// does not track.

// Change is one path that differs between two trees: Status is git's
// letter (A added, M modified, D deleted, T type changed).
type Change struct {
	Path   string
	Status byte
}

// Changes lists the paths that differ between trees (or commits) a and b,
// every file on its own (-r) and a rename as a deletion and an addition,
// so that a file renamed onto a protected path is named by its new path.
func (r *Repo) Changes(a, b string) ([]Change, error) {
	if !isHex(a) || !isHex(b) {
		return nil, errors.New("gitwork: changes: " + a + " " + b + ": not object ids")
	}
	out, _, err := r.runFull(nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", a, b)
	if err != nil {
		return nil, err
	}
	return parseNameStatus(out), nil
}

// parseNameStatus reads git diff-tree --name-status -z: "STATUS\0PATH\0".
func parseNameStatus(out string) []Change {
	var list []Change
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "" {
			break
		}
		list = append(list, Change{Status: fields[i][0], Path: fields[i+1]})
	}
	return list
}

// Protected are the paths among changes (from a to tree b, as Changes
// lists them) that are not the project's code: those at or below flow (the
// project's .flow directory relative to the repository's top, slash
// separated: ".flow", or "sub/.flow" for a project below the top), and
// those b adds or changes that the ignore rules of the person's checkout
// (the main worktree's .gitignore files, info/exclude, core.excludesFile)
// match and its index does not track. The ignore rules are the person's as
// on disk: a .gitignore the agent changed has no say.
func (r *Repo) Protected(flow string, b string, changes []Change) ([]string, error) {
	var out []string
	var written []string
	for _, c := range changes {
		if flow != "" && (c.Path == flow || strings.HasPrefix(c.Path, flow+"/")) {
			out = append(out, c.Path)
			continue
		}
		if c.Status != 'D' {
			written = append(written, c.Path)
		}
	}
	if len(written) == 0 {
		return out, nil
	}
	ignored, err := r.ignoredIn(b)
	if err != nil {
		return nil, err
	}
	if len(ignored) == 0 {
		return out, nil
	}
	// A file the person tracks is theirs to track even where a pattern
	// matches it: it is code, not an ignored file.
	tracked, err := r.ignoredIn("")
	if err != nil {
		return nil, err
	}
	for _, p := range written {
		if ignored[p] && !tracked[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ignoredIn is the set of files of tree (the person's index when "") that
// the ignore rules of the main worktree match: git ls-files --ignored on a
// temporary index that holds tree.
func (r *Repo) ignoredIn(tree string) (map[string]bool, error) {
	var env []string
	if tree != "" {
		if !isHex(tree) {
			return nil, errors.New("gitwork: " + tree + " is not an object id")
		}
		tmp, err := os.MkdirTemp("", "flowdeck-ignored-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		env = []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
		if _, err := r.run(env, "read-tree", tree); err != nil {
			return nil, err
		}
	}
	out, _, err := r.runFull(env, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set, nil
}

// InTheWay are the paths of changes (from the checkout's HEAD to the tree
// a land would check out) that would overwrite or remove something in the
// main worktree that git does not track: an added path that exists there,
// or a leading directory of one that is a file or a symlink. The tree is
// clean (Land checks first), so what HEAD lacks is untracked or ignored.
func (r *Repo) InTheWay(changes []Change) ([]string, error) {
	gone := map[string]bool{} // tracked paths the land removes or replaces
	for _, c := range changes {
		if c.Status != 'A' {
			gone[c.Path] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range changes {
		if c.Status != 'A' {
			continue
		}
		// Each leading directory first, without following a symlink: one
		// in the way is reported, and nothing beyond it is looked at.
		parts := strings.Split(c.Path, "/")
		for i := range parts {
			p := strings.Join(parts[:i+1], "/")
			last := i == len(parts)-1
			fi, err := os.Lstat(filepath.Join(r.Dir, filepath.FromSlash(p)))
			if errors.Is(err, fs.ErrNotExist) {
				break
			} else if err != nil {
				return nil, err
			}
			if !last && fi.IsDir() {
				continue
			}
			// A directory where a file lands is in the way unless the land
			// removes tracked files from it: then git tells (see Land).
			if !gone[p] && !seen[p] && !(last && fi.IsDir() && emptiedBy(gone, p)) {
				seen[p] = true
				out = append(out, p)
			}
			break
		}
	}
	slices.Sort(out)
	return out, nil
}

// emptiedBy reports whether gone holds a path below directory dir.
func emptiedBy(gone map[string]bool, dir string) bool {
	for p := range gone {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// FlowPath is where dir's .flow is relative to the top of repository r,
// slash separated: ".flow", or "sub/.flow" for dir sub. A dir outside the
// repository's work tree is an error: nothing there could be protected.
func (r *Repo) FlowPath(dir string) (string, error) {
	rel, err := r.Rel(dir)
	if err != nil {
		return "", err
	}
	return path.Join(filepath.ToSlash(rel), ".flow"), nil
}

// ProtectedSince are the paths Protected names among what commit to changed
// since commit from (both ids).
func (r *Repo) ProtectedSince(flow, from, to string) ([]string, error) {
	changes, err := r.Changes(from, to)
	if err != nil {
		return nil, err
	}
	return r.Protected(flow, to, changes)
}

// BranchProtected are the paths Protected names among what branch changed
// since it left target (since their merge base): what merging it into
// target would be refused for. None when either branch does not exist.
func (r *Repo) BranchProtected(flow, target, branch string) ([]string, error) {
	head, err := r.BranchHead(branch)
	if err != nil || head == "" {
		return nil, err
	}
	onto, err := r.BranchHead(target)
	if err != nil || onto == "" {
		return nil, err
	}
	base, err := r.git("merge-base", onto, head)
	if err != nil {
		return nil, err
	}
	return r.ProtectedSince(flow, base, head)
}
