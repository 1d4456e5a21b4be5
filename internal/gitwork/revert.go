package gitwork

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Revert is one merge to undo on a branch: it went from Before to After.
type Revert struct {
	Before, After string
	Msg           string // the message of the commit that undoes it
}

// RevertOn computes, on top of branch's head, one commit per revert (in the
// order given) that takes back what After changed since Before, without
// checking anything out or moving the branch. Each is a three-way merge in
// a scratch index (git read-tree -m, After as the base, the head as ours,
// Before as theirs): a path that something else also changed since After
// is a conflict, even where a line-by-line merge would succeed, and
// conflicts names every such path (head is then ""). old is the branch's
// head it started from, for MoveBranch's guard.
func (r *Repo) RevertOn(branch string, reverts []Revert) (head, old string, conflicts []string, err error) {
	if err := checkBranch(branch); err != nil {
		return "", "", nil, err
	}
	for _, rv := range reverts {
		for _, c := range []string{rv.Before, rv.After} {
			if !isHex(c) {
				return "", "", nil, fmt.Errorf("gitwork: revert: %q is not a commit id", c)
			}
		}
	}
	if old, err = r.mustHead(branch); err != nil {
		return "", "", nil, err
	}
	scratch, err := os.MkdirTemp("", "flowdeck-revert-")
	if err != nil {
		return "", "", nil, err
	}
	defer os.RemoveAll(scratch)
	head = old
	for i, rv := range reverts {
		index := []string{"GIT_INDEX_FILE=" + filepath.Join(scratch, fmt.Sprintf("index-%d", i))}
		if _, err := run(context.Background(), r.Dir, index, "read-tree", "-m", "--aggressive", rv.After, head, rv.Before); err != nil {
			return "", "", nil, err
		}
		unmerged, err := run(context.Background(), r.Dir, index, "ls-files", "-u", "-z")
		if err != nil {
			return "", "", nil, err
		}
		if paths := uniquePaths(unmerged); len(paths) > 0 {
			conflicts = append(conflicts, paths...)
			continue // the later reverts are checked too, so that all conflicts are named at once
		}
		if len(conflicts) > 0 {
			continue
		}
		tree, err := run(context.Background(), r.Dir, index, "write-tree")
		if err != nil {
			return "", "", nil, err
		}
		commit, err := run(context.Background(), r.Dir, identity(r.Dir), "commit-tree", strings.TrimSpace(tree), "-p", head, "-m", rv.Msg)
		if err != nil {
			return "", "", nil, err
		}
		head = strings.TrimSpace(commit)
	}
	if len(conflicts) > 0 {
		return "", old, conflicts, nil
	}
	return head, old, nil, nil
}

// MoveBranch points branch at to, only if it still points at from.
func (r *Repo) MoveBranch(branch, to, from, reason string) error {
	if err := checkBranch(branch); err != nil {
		return err
	}
	if err := r.refuseCheckedOut(branch); err != nil {
		return err
	}
	return r.moveBranch(branch, to, from, reason)
}

// uniquePaths reads git ls-files -u -z (NUL-ended "mode object stage\tpath"
// entries, up to three per path) as its paths, each once, in order.
func uniquePaths(out string) []string {
	var paths []string
	seen := map[string]bool{}
	for _, entry := range strings.Split(out, "\x00") {
		_, p, ok := strings.Cut(entry, "\t")
		if ok && p != "" && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}

func isHex(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
