package gitwork

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The code state as git trees: a snapshot of a work tree (what is on disk,
// committed or not), kept under refs/flowdeck/ so that gc never takes what
// evidence or a diff names, and diffs between two such trees.

// treesRef is the namespace of the trees flowdeck keeps: one ref per tree,
// named by the tree's id, so that keeping a tree twice is one ref.
const treesRef = "refs/flowdeck/trees/"

// Snapshot writes the tree of the work tree that dir is in, as a commit of
// everything would see it: tracked and untracked files, .gitignore
// respected, with the paths in exclude (relative to dir, such as ".flow")
// left out. It works through a temporary copy of the index, so the
// person's index, HEAD and files are untouched (the way git stash create
// leaves them). dir may be a linked worktree.
//
// The files are hashed as they are on disk: the clean filters of the
// repository's config (which an agent can write) do not run.
func Snapshot(dir string, exclude ...string) (string, error) {
	return withTempIndex(dir, "", exclude, func(ix *tempIndex, excl []string) error {
		// ":/" is the whole work tree (":(top)." would be a file named ".").
		args := []string{"add", "-A", "--", ":/"}
		for _, x := range excl {
			args = append(args, ":(exclude,top,literal)"+x)
		}
		if _, err := ix.git(args...); err == nil || len(excl) == 0 {
			return err
		}
		// git add fails on an exclusion that names an ignored path; ignored,
		// it is not added anyway. Anything under it that is not ignored
		// leaves the index again.
		if _, err := ix.git("add", "-A", "--", ":/"); err != nil {
			return err
		}
		return ix.removeCached(excl)
	})
}

// NoFilters is the environment that switches off every filter driver the
// repository's config defines (filter.NAME.clean, smudge and process, and
// required, which would make a filter that does not run an error): given
// to a command that reads or writes files (add, status, commit, even
// write-tree), it keeps repository-controlled programs from running
// inside flowdeck's git. It is git's GIT_CONFIG_KEY_n/VALUE_n rather than
// -c NAME=VALUE, which would split a driver named "a=b" (a name the
// config, written by an agent, may hold) at its '='.
func NoFilters(dir string) ([]string, error) {
	out, code, err := runFull(context.Background(), dir, nil, "config", "-z", "--get-regexp", `^filter\.`)
	if err != nil {
		if code == 1 { // no filter configured
			return nil, nil
		}
		return nil, err
	}
	var keys []string
	seen := map[string]bool{}
	for _, entry := range strings.Split(out, "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		name, ok := strings.CutPrefix(key, "filter.")
		i := strings.LastIndexByte(name, '.')
		if !ok || i <= 0 || seen[name[:i]] {
			continue
		}
		seen[name[:i]] = true
		for _, k := range []string{"clean", "smudge", "process", "required"} {
			keys = append(keys, "filter."+name[:i]+"."+k)
		}
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(keys))}
	for n, k := range keys {
		value := ""
		if strings.HasSuffix(k, ".required") {
			value = "false"
		}
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, k), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, value))
	}
	return env, nil
}

// TreeWithout is the tree of commit without the paths in exclude
// (relative to dir, as for Snapshot): what a snapshot of a clean checkout
// of commit would be.
func TreeWithout(dir, commit string, exclude ...string) (string, error) {
	if !isHex(commit) {
		return "", fmt.Errorf("gitwork: %q is not a commit id", commit)
	}
	return withTempIndex(dir, commit, exclude, nil)
}

// tempIndex is a temporary index of the work tree at top, and an
// environment that names it and switches off the repository's filter
// drivers for every command on it (git runs a clean filter even to write
// a tree).
type tempIndex struct {
	top string
	env []string
}

func (ix *tempIndex) git(args ...string) (string, error) {
	return run(context.Background(), ix.top, ix.env, args...)
}

// removeCached drops the paths excl (relative to the top) from the index.
func (ix *tempIndex) removeCached(excl []string) error {
	if len(excl) == 0 {
		return nil
	}
	args := []string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}
	for _, x := range excl {
		args = append(args, ":(top,literal)"+x)
	}
	_, err := ix.git(args...)
	return err
}

// withTempIndex runs the steps of a snapshot on a temporary index: a copy
// of the work tree's index (or, with from, that commit's tree read into a
// new one), the excluded paths removed from it, then fill (may be nil),
// then write-tree. The person's index is never written.
func withTempIndex(dir, from string, exclude []string, fill func(ix *tempIndex, excl []string) error) (string, error) {
	ctx := context.Background()
	paths, err := run(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-path", "index")
	if err != nil {
		return "", err
	}
	top, index, ok := strings.Cut(paths, "\n")
	if !ok {
		return "", fmt.Errorf("gitwork: snapshot %s: unexpected rev-parse output %q", dir, paths)
	}
	// The exclusions are relative to dir; git is run at the top, so they are
	// made relative to it.
	rel, err := relTo(top, dir)
	if err != nil {
		return "", err
	}
	noFilters, err := NoFilters(top)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "flowdeck-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	tmpIndex := filepath.Join(tmp, "index")
	ix := &tempIndex{top: top, env: append(noFilters, "GIT_INDEX_FILE="+tmpIndex)}
	var excl []string
	for _, x := range exclude {
		excl = append(excl, filepath.ToSlash(filepath.Join(rel, x)))
	}
	tracked := excl // the exclusions the index may hold entries under
	if from != "" {
		if _, err := ix.git("read-tree", from); err != nil {
			return "", err
		}
	} else {
		// The copy keeps git's stat cache: add then hashes only what
		// changed, which keeps a snapshot near the cost of git status.
		data, err := os.ReadFile(index)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("gitwork: snapshot %s: read the index: %w", dir, err)
		}
		if err == nil {
			if err := os.WriteFile(tmpIndex, data, 0o600); err != nil {
				return "", err
			}
			tracked = mayHold(data, excl)
		} else {
			tracked = nil
		}
	}
	// What the person staged under an excluded path must not count
	// either: it leaves the copy of the index.
	if err := ix.removeCached(tracked); err != nil {
		return "", err
	}
	if fill != nil {
		if err := fill(ix, excl); err != nil {
			return "", err
		}
	}
	return ix.git("write-tree")
}

func relTo(top, dir string) (string, error) {
	t, err1 := filepath.EvalSymlinks(top)
	d, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return "", errors.Join(err1, err2)
	}
	rel, err := filepath.Rel(t, d)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("gitwork: %s is not inside the work tree %s", dir, top)
	}
	return rel, nil
}

// mayHold are the paths of excl that index (an index file's bytes) may
// have entries under: an index of version 2 or 3 names every path whole,
// so one whose bytes never show "PATH/" has none. Version 4 compresses
// paths: every exclusion may be held then. Leaving out a git run for the
// common case (.flow untracked) keeps a snapshot near git status's cost.
func mayHold(index []byte, excl []string) []string {
	if len(index) < 8 || !bytes.HasPrefix(index, []byte("DIRC")) || index[7] > 3 || index[4]|index[5]|index[6] != 0 {
		return excl
	}
	var out []string
	for _, x := range excl {
		if bytes.Contains(index, []byte(x+"/")) {
			out = append(out, x)
		}
	}
	return out
}

// Keep puts tree under refs/flowdeck/trees/, so that gc keeps it (and what
// it holds) as long as the repository does. Keeping a kept tree is a
// no-op, also when another process keeps the same tree at the same moment
// (two features starting from one integration head): the ref is only
// created, and a creation refused because the ref is there already finds
// it naming the tree.
func Keep(dir, tree string) error {
	if !isHex(tree) {
		return fmt.Errorf("gitwork: keep: %q is not a tree id", tree)
	}
	ref := treesRef + tree
	_, err := run(context.Background(), dir, nil, "update-ref", "-m", "flowdeck: keep", ref, tree, "")
	if err == nil {
		return nil
	}
	if got, _, rerr := runFull(context.Background(), dir, nil, "rev-parse", "--verify", "--quiet", ref); rerr == nil && strings.TrimSpace(got) == tree {
		return nil
	}
	return err
}

// Diff writes the unified diff from tree (or commit) a to b into w, as git
// diff prints it without colour, external diff drivers or textconv, with
// renames found.
func Diff(dir, a, b string, w io.Writer) error {
	args, err := diffArgs(a, b, "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/")
	if err != nil {
		return err
	}
	_, err = runTo(context.Background(), dir, nil, w, args...)
	return err
}

func diffArgs(a, b string, flags ...string) ([]string, error) {
	if !isHex(a) || !isHex(b) {
		return nil, fmt.Errorf("gitwork: diff %q %q: not object ids", a, b)
	}
	return append(append([]string{"diff"}, flags...), a, b), nil
}

// FileStat is one file of a diff: its path (the new one after a rename)
// and its added and removed lines (-1 each for a binary file).
type FileStat struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Binary  bool   `json:"binary,omitempty"`
}

// Stat lists the files that differ between trees a and b with their line
// counts, in git's order.
func Stat(dir, a, b string) ([]FileStat, error) {
	args, err := diffArgs(a, b, "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--numstat", "-z")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if _, err := runTo(context.Background(), dir, nil, &out, args...); err != nil {
		return nil, err
	}
	return parseNumstat(out.String()), nil
}

// parseNumstat reads git diff --numstat -z: "ADD\tDEL\tPATH\0", or for a
// rename "ADD\tDEL\t\0OLD\0NEW\0"; a binary file counts "-".
func parseNumstat(out string) []FileStat {
	var list []FileStat
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		parts := strings.SplitN(fields[i], "\t", 3)
		if len(parts) != 3 {
			continue
		}
		f := FileStat{Path: parts[2]}
		if parts[0] == "-" && parts[1] == "-" {
			f.Binary, f.Added, f.Removed = true, -1, -1
		} else {
			f.Added, _ = strconv.Atoi(parts[0])
			f.Removed, _ = strconv.Atoi(parts[1])
		}
		if f.Path == "" && i+2 < len(fields) { // a rename: old and new follow
			f.OldPath, f.Path = fields[i+1], fields[i+2]
			i += 2
		}
		list = append(list, f)
	}
	return list
}

// Changed lists the paths that differ between trees a and b.
func Changed(dir, a, b string) ([]string, error) {
	stats, err := Stat(dir, a, b)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(stats))
	for i, s := range stats {
		out[i] = s.Path
	}
	return out, nil
}
