package gitwork

import (
	"errors"
	"fmt"
	"strings"
)

// MergeResult is what merging a branch into another did.
type MergeResult struct {
	// Commit is the target branch's head after the merge (unchanged on a
	// conflict or when there was nothing to merge); of PrepareMerge, what
	// the merge is to move it to.
	Commit string `json:"commit,omitempty"`
	// Base is the target's head the merge started from, read once under
	// the update's guard: what undoing the merge moves the branch back to.
	Base        string   `json:"-"`
	FastForward bool     `json:"fast_forward,omitempty"`
	UpToDate    bool     `json:"up_to_date,omitempty"`
	Conflicts   []string `json:"conflicts,omitempty"`
}

// ErrCheckedOut means the integration branch is checked out in a worktree,
// where moving it behind git's back would leave that worktree's index stale.
var ErrCheckedOut = errors.New("gitwork: the branch is checked out in a worktree")

// PrepareMerge works out the merge of commit tip of branch feature into
// branch target without checking target out anywhere and without moving
// it: Commit is what target is to point at, tip for a fast-forward (target
// is an ancestor of tip), else a merge commit (message msg) of the tree git
// merge-tree writes, made but on no branch; Base is target's head now.
// MoveBranch(target, Commit, Base, ...) then makes the merge, guarded by
// Base, so that a concurrent move is an error, not a lost merge; the
// caller records what it is about to do in between. It merges tip, not what
// feature points at now: the caller validated tip, and an agent may have
// committed since. On a conflict Commit is Base and Conflicts names the
// paths.
func (r *Repo) PrepareMerge(target, feature, tip, msg string) (*MergeResult, error) {
	for _, b := range []string{target, feature} {
		if err := checkBranch(b); err != nil {
			return nil, err
		}
	}
	if !isHex(tip) {
		return nil, fmt.Errorf("gitwork: merge %s: %q is not a commit id", feature, tip)
	}
	if err := r.refuseCheckedOut(target); err != nil {
		return nil, err
	}
	base, err := r.mustHead(target)
	if err != nil {
		return nil, err
	}
	if ok, err := r.IsAncestor(tip, base); err != nil || ok {
		return &MergeResult{Commit: base, Base: base, UpToDate: ok}, err
	}
	if ok, err := r.IsAncestor(base, tip); err != nil {
		return nil, err
	} else if ok {
		return &MergeResult{Commit: tip, Base: base, FastForward: true}, nil
	}
	tree, conflicts, err := r.mergeTree(base, tip)
	if err != nil || len(conflicts) > 0 {
		return &MergeResult{Commit: base, Base: base, Conflicts: conflicts}, err
	}
	commit, err := r.run(r.identity(), "commit-tree", tree, "-p", base, "-p", tip, "-m", msg)
	if err != nil {
		return nil, err
	}
	return &MergeResult{Commit: commit, Base: base}, nil
}

func (r *Repo) mustHead(branch string) (string, error) {
	h, err := r.BranchHead(branch)
	if err == nil && h == "" {
		err = fmt.Errorf("gitwork: branch %s does not exist", branch)
	}
	return h, err
}

// IsAncestor reports whether commit a is an ancestor of commit b (or b).
// Both must be object ids (a reset orders merges the database names).
func (r *Repo) IsAncestor(a, b string) (bool, error) {
	if !isHex(a) || !isHex(b) {
		return false, fmt.Errorf("gitwork: is-ancestor %q %q: not commit ids", a, b)
	}
	_, code, err := r.runFull(nil, "merge-base", "--is-ancestor", a, b)
	if code == 1 {
		return false, nil
	}
	return err == nil, err
}

// mergeTree writes the merged tree of two commits; exit status 1 is a
// conflict, with the conflicting paths after the tree id.
func (r *Repo) mergeTree(a, b string) (string, []string, error) {
	// merge-tree merges file contents: the repository's merge drivers
	// are switched off for it (drivers).
	off, err := r.drivers()
	if err != nil {
		return "", nil, err
	}
	out, code, err := r.runFull(off, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", a, b)
	if err != nil && code != 1 {
		return "", nil, err
	}
	tree, paths := parseMergeTree(out)
	if code == 0 {
		return tree, nil, nil
	}
	return tree, paths, nil
}

// parseMergeTree reads git merge-tree --write-tree --name-only
// --no-messages -z: the tree id, then NUL-ended conflicting paths (each
// once) up to an empty field.
func parseMergeTree(out string) (string, []string) {
	fields := strings.Split(out, "\x00")
	tree := strings.TrimSpace(fields[0])
	var paths []string
	seen := map[string]bool{}
	for _, p := range fields[1:] {
		if p == "" {
			break
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return tree, paths
}

// moveBranch points branch at to, only if it still points at from.
func (r *Repo) moveBranch(branch, to, from, reason string) error {
	_, err := r.git("update-ref", "-m", reason, ref(branch), to, from)
	return err
}

func (r *Repo) refuseCheckedOut(branch string) error {
	list, err := r.Worktrees()
	if err != nil {
		return err
	}
	for _, w := range list {
		if w.Branch == branch {
			return fmt.Errorf("%w: %s at %s", ErrCheckedOut, branch, w.Path)
		}
	}
	return nil
}

// ErrDirty means the main worktree has uncommitted changes.
var ErrDirty = errors.New("gitwork: the worktree has uncommitted changes")

// ErrDetached means no branch is checked out in the main worktree.
var ErrDetached = errors.New("gitwork: HEAD is detached")

// LandResult is what Land did to the user's branch.
type LandResult struct {
	Branch string `json:"branch"`
	MergeResult
	// Protected are the paths the land would change that are not the
	// project's code (see Protected), InTheWay those it would overwrite
	// untracked (see InTheWay): either refuses it, changing nothing.
	Protected []string `json:"protected,omitempty"`
	InTheWay  []string `json:"in_the_way,omitempty"`
}

// Land merges branch from into the branch checked out in the repository's
// main worktree with git merge (a fast-forward when possible). It refuses a
// dirty tree or a detached HEAD; a conflict is aborted, leaving the tree as
// it was, and reported in Conflicts. Before anything moves it refuses
// (Protected, InTheWay) a land that would change a path at or below flow
// (the project's .flow, see Protected) or one the checkout ignores, or
// write over a file git does not track; git itself is told to refuse
// rather than overwrite an ignored file, and an untracked file it finds in
// the way is reported in InTheWay rather than as git's error.
func (r *Repo) Land(from, msg, flow string) (*LandResult, error) {
	if err := checkBranch(from); err != nil {
		return nil, err
	}
	branch, head, err := r.CurrentBranch()
	if err != nil {
		return nil, err
	}
	if branch == "" {
		return nil, fmt.Errorf("%w in %s", ErrDetached, r.Dir)
	}
	if clean, err := r.Clean(false); err != nil {
		return nil, err
	} else if !clean {
		return nil, fmt.Errorf("%w: %s (commit or stash them first)", ErrDirty, r.Dir)
	}
	tip, err := r.mustHead(from)
	if err != nil {
		return nil, err
	}
	res := &LandResult{Branch: branch}
	if ok, err := r.IsAncestor(tip, head); err != nil || ok {
		res.Commit, res.UpToDate = head, ok
		return res, err
	}
	tree, conflicts, err := r.mergeTree(head, tip)
	if err != nil || len(conflicts) > 0 {
		res.Commit, res.Conflicts = head, conflicts
		return res, err
	}
	res.Commit = head
	changes, err := r.Changes(head, tree)
	if err != nil {
		return nil, err
	}
	if res.Protected, err = r.Protected(flow, tree, changes); err != nil || len(res.Protected) > 0 {
		return res, err
	}
	if res.InTheWay, err = r.InTheWay(changes); err != nil || len(res.InTheWay) > 0 {
		return res, err
	}
	ff, err := r.IsAncestor(head, tip)
	if err != nil {
		return nil, err
	}
	// --ff overrides a merge.ff the person configured (no, only): git does
	// what FastForward reports. tip, not the branch, is merged: it is what
	// was checked for conflicts. --no-overwrite-ignore: an ignored file in
	// the way stops git instead of being replaced.
	if _, err := r.runFiles(r.Dir, r.identity(), "merge", "--ff", "--no-edit", "--no-verify", "--no-stat",
		"--no-overwrite-ignore", "-m", msg, "--", tip); err != nil {
		r.runFiles(r.Dir, nil, "merge", "--abort") // leave the tree as it was
		if paths := overwritten(err); len(paths) > 0 {
			res.InTheWay = paths
			return res, nil
		}
		return nil, err
	}
	res.Commit, err = r.Head()
	res.FastForward = ff
	return res, err
}

// overwritten reads the paths out of git's refusal to overwrite or remove
// untracked or ignored files (each on its own line, indented by a tab,
// after a line that says why); nil when err is another failure.
func overwritten(err error) []string {
	var gerr *Error
	if !errors.As(err, &gerr) {
		return nil
	}
	var paths []string
	listing := false
	for _, line := range strings.Split(gerr.Stderr, "\n") {
		switch {
		case strings.Contains(line, "would be overwritten by merge") || strings.Contains(line, "would be removed by merge") ||
			strings.Contains(line, "would lose untracked files"):
			listing = true
		case listing && strings.HasPrefix(line, "\t"):
			paths = append(paths, strings.TrimPrefix(line, "\t"))
		default:
			listing = false
		}
	}
	return paths
}
