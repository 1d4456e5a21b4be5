package gitwork

import (
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
// Before as theirs); a file that something else also changed since After
// is merged line by line (git merge-file), as git revert would. What still
// conflicts (the same lines, or a file added or deleted on one side and
// changed on the other) is named in conflicts, and head is then "". old is the branch's
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
		if _, err := r.run(index, "read-tree", "-m", "--aggressive", rv.After, head, rv.Before); err != nil {
			return "", "", nil, err
		}
		unmerged, err := r.run(index, "ls-files", "-u", "-z")
		if err != nil {
			return "", "", nil, err
		}
		paths, err := r.mergeFiles(index, scratch, unmerged)
		if err != nil {
			return "", "", nil, err
		}
		if len(paths) > 0 {
			conflicts = append(conflicts, paths...)
			continue // the later reverts are checked too, so that all conflicts are named at once
		}
		if len(conflicts) > 0 {
			continue
		}
		tree, err := r.run(index, "write-tree")
		if err != nil {
			return "", "", nil, err
		}
		commit, err := r.run(r.identity(), "commit-tree", strings.TrimSpace(tree), "-p", head, "-m", rv.Msg)
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

// MoveBranch points branch at to, only if it still points at from. Both
// must be object ids: they can come from the database (a merge recorded as
// under way), and update-ref would take "-d" as an option (deleting the
// branch) or a revision as a commit.
func (r *Repo) MoveBranch(branch, to, from, reason string) error {
	if err := checkBranch(branch); err != nil {
		return err
	}
	if !isHex(to) || !isHex(from) {
		return fmt.Errorf("gitwork: move %s from %q to %q: not commit ids", branch, from, to)
	}
	if err := r.refuseCheckedOut(branch); err != nil {
		return err
	}
	return r.moveBranch(branch, to, from, reason)
}

// mergeFiles merges, line by line, each path of unmerged (git ls-files -u
// -z of index) that has all three stages and plain file modes, and stages
// the result; it returns the paths that still conflict.
func (r *Repo) mergeFiles(index []string, scratch, unmerged string) ([]string, error) {
	type stages struct {
		mode string
		blob [4]string // by stage: 1 base, 2 ours, 3 theirs
	}
	byPath := map[string]*stages{}
	var order []string
	for _, entry := range strings.Split(unmerged, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || len(f[2]) != 1 || f[2][0] < '1' || f[2][0] > '3' {
			continue
		}
		st := byPath[path]
		if st == nil {
			st = &stages{mode: f[0]}
			byPath[path] = st
			order = append(order, path)
		}
		st.blob[f[2][0]-'0'] = f[1]
		if f[0] != st.mode {
			st.mode = "" // a mode change: not merged here
		}
	}
	var conflicts []string
	for _, path := range order {
		st := byPath[path]
		if st.mode != "100644" && st.mode != "100755" || st.blob[1] == "" || st.blob[2] == "" || st.blob[3] == "" {
			conflicts = append(conflicts, path)
			continue
		}
		merged, clean, err := r.mergeBlobs(scratch, st.blob[2], st.blob[1], st.blob[3])
		if err != nil {
			return nil, err
		}
		if !clean {
			conflicts = append(conflicts, path)
			continue
		}
		if _, err := r.run(index, "update-index", "--cacheinfo", st.mode+","+merged+","+path); err != nil {
			return nil, err
		}
	}
	return conflicts, nil
}

// mergeBlobs merges three blobs with git merge-file (ours, base, theirs)
// and writes the result as a blob; clean is false when lines conflict.
func (r *Repo) mergeBlobs(scratch, ours, base, theirs string) (blob string, clean bool, err error) {
	files := make([]string, 3)
	for i, b := range []string{ours, base, theirs} {
		files[i] = filepath.Join(scratch, fmt.Sprintf("blob-%d", i))
		if err := r.blobTo(files[i], b); err != nil {
			return "", false, err
		}
	}
	// Without -p, merge-file writes the result into the first file; its
	// exit status is the number of conflicts (negative on an error).
	_, code, err := r.runFull(nil, "merge-file", "-q", files[0], files[1], files[2])
	if code > 0 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	out, err := r.run(nil, "hash-object", "-w", "--no-filters", "--", files[0])
	return out, true, err
}

// blobTo writes blob b to the new file path, streamed: an agent's blob may
// be large, and is not held in memory.
func (r *Repo) blobTo(path, b string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = r.runTo(f, "cat-file", "blob", b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func isHex(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
