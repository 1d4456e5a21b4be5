package gitwork

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flowdeck/flowdeck/internal/contain"
)

// The code state as git trees: a snapshot of a work tree (what is on disk,
// committed or not), kept under refs/flowdeck/ so that gc never takes what
// evidence or a diff names, and diffs between two such trees.

// treesRef is the namespace of the trees flowdeck keeps: one ref per tree,
// named by the tree's id, so that keeping a tree twice is one ref.
const treesRef = "refs/flowdeck/trees/"

// Snapshot writes the tree of r's work tree, as a commit of everything
// would see it: tracked and untracked files, .gitignore respected, with the
// paths in exclude (relative to dir, r.Dir or a directory below it, such as
// ".flow") left out. It works through a temporary copy of the index, so the
// person's index, HEAD and files are untouched (the way git stash create
// leaves them).
//
// The files are hashed as they are on disk: the clean filters of the
// repository's config (which an agent can write) do not run.
func (r *Repo) Snapshot(dir string, exclude ...string) (string, error) {
	return r.withTempIndex(dir, "", exclude, func(ix *tempIndex, excl []string) error {
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

// drivers is the environment that switches off every filter and merge
// driver the repository's config defines, by name (git has no switch for
// all of them): a filter's clean, smudge and process commands are emptied
// and it is no longer required (a required filter that does not run is an
// error); a merge driver becomes "false", so that a path that asks for one
// conflicts rather than merging by the driver's say. (Diff drivers need no
// override: every diff flowdeck runs says --no-ext-diff --no-textconv, and
// merges print no diffstat.) Given to a
// command that reads, writes or merges files (add, status, commit, merge,
// merge-tree, even write-tree, which runs a clean filter), it keeps
// repository-controlled programs from running inside flowdeck's git. It is
// git's GIT_CONFIG_KEY_n/VALUE_n rather than -c NAME=VALUE, which would
// split a driver named "a=b" (a name the config, written by an agent, may
// hold) at its '='.
func (r *Repo) drivers() ([]string, error) {
	out, code, err := r.runFull(nil, "config", "-z", "--get-regexp", `^(filter|merge)\.`)
	if err != nil {
		if code == 1 { // no driver configured
			return nil, nil
		}
		return nil, err
	}
	return driverEnv(out), nil
}

// driverOff is what each key of a driver is set to, per kind.
var driverOff = map[string][][2]string{
	"filter": {{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}},
	"merge":  {{"driver", "false"}},
}

// driverEnv reads git config -z --get-regexp output ("KEY\nVALUE\0" per
// entry) and returns the environment that overrides every driver named.
func driverEnv(out string) []string {
	var keys, values []string
	seen := map[string]bool{}
	for _, entry := range strings.Split(out, "\x00") {
		key, _, _ := strings.Cut(entry, "\n")
		kind, rest, ok := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 || driverOff[kind] == nil || seen[kind+"."+rest[:i]] {
			continue // a section-wide key (merge.ff, diff.renames) names no driver
		}
		seen[kind+"."+rest[:i]] = true
		for _, kv := range driverOff[kind] {
			keys = append(keys, kind+"."+rest[:i]+"."+kv[0])
			values = append(values, kv[1])
		}
	}
	if len(keys) == 0 {
		return nil
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(keys))}
	for n, k := range keys {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, k), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, values[n]))
	}
	return env
}

// TreeWithout is the tree of commit without the paths in exclude
// (relative to dir, as for Snapshot): what a snapshot of a clean checkout
// of commit would be.
func (r *Repo) TreeWithout(dir, commit string, exclude ...string) (string, error) {
	if !isHex(commit) {
		return "", fmt.Errorf("gitwork: %q is not a commit id", commit)
	}
	return r.withTempIndex(dir, commit, exclude, nil)
}

// tempIndex is a temporary index of r's work tree, and an environment
// that names it and switches off the repository's drivers for every
// command on it (git runs a clean filter even to write a tree).
type tempIndex struct {
	r   *Repo
	env []string
}

func (ix *tempIndex) git(args ...string) (string, error) {
	return ix.r.run(ix.env, args...)
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
func (r *Repo) withTempIndex(dir, from string, exclude []string, fill func(ix *tempIndex, excl []string) error) (string, error) {
	// The exclusions are relative to dir; git is run at the top, so they are
	// made relative to it.
	rel, err := r.Rel(dir)
	if err != nil {
		return "", err
	}
	off, err := r.drivers()
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "flowdeck-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	tmpIndex := filepath.Join(tmp, "index")
	ix := &tempIndex{r: r, env: append(off, "GIT_INDEX_FILE="+tmpIndex)}
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
		data, err := readRegular(r.gitDir, "index")
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

// readRegular reads file name in directory dir, which must be a regular
// file (contain.OpenRegular): an agent can put a FIFO (the read would never
// end), a device or a link in a worktree's git directory.
func readRegular(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := contain.OpenRegular(root, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Rel is where dir is below the top of r's work tree ("." for the top),
// both with symlinks resolved; a dir outside the work tree is an error.
func (r *Repo) Rel(dir string) (string, error) {
	t, err1 := filepath.EvalSymlinks(r.Dir)
	d, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return "", errors.Join(err1, err2)
	}
	rel, err := filepath.Rel(t, d)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("gitwork: %s is not inside the work tree %s", dir, r.Dir)
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
func (r *Repo) Keep(tree string) error {
	if !isHex(tree) {
		return fmt.Errorf("gitwork: keep: %q is not a tree id", tree)
	}
	ref := treesRef + tree
	_, err := r.git("update-ref", "-m", "flowdeck: keep", ref, tree, "")
	if err == nil {
		return nil
	}
	if got, _, rerr := r.runFull(nil, "rev-parse", "--verify", "--quiet", ref); rerr == nil && strings.TrimSpace(got) == tree {
		return nil
	}
	return err
}

// Diff writes the unified diff from tree (or commit) a to b into w, as git
// diff prints it without colour, external diff drivers or textconv, with
// renames found.
func (r *Repo) Diff(a, b string, w io.Writer) error {
	args, err := diffArgs(a, b, "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/")
	if err != nil {
		return err
	}
	_, err = r.runTo(w, args...)
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
func (r *Repo) Stat(a, b string) ([]FileStat, error) {
	args, err := diffArgs(a, b, "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--numstat", "-z")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if _, err := r.runTo(&out, args...); err != nil {
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
func (r *Repo) Changed(a, b string) ([]string, error) {
	stats, err := r.Stat(a, b)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(stats))
	for i, s := range stats {
		out[i] = s.Path
	}
	return out, nil
}
