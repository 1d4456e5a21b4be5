// Package gitwork drives the git command line for flowdeck's parallel
// agents: branches, worktrees, and merges into an integration branch that is
// never checked out. It runs git as users have it, with a fixed locale, no
// prompts and no pager, and always names the repository with -C.
package gitwork

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ErrNoGit means the git program is not installed.
var ErrNoGit = errors.New("git is not installed (not on PATH)")

// Error is a git command that failed: the command and what git said.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Available reports whether git can be run.
func Available() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// Repo is one git repository, named by a directory inside its main worktree.
type Repo struct {
	Dir string
}

// Open returns the repository containing dir, at its top level.
func Open(dir string) (*Repo, error) {
	out, err := run(context.Background(), dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	return &Repo{Dir: out}, nil
}

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(dir string) bool {
	if !Available() {
		return false
	}
	out, err := run(context.Background(), dir, nil, "rev-parse", "--is-inside-work-tree")
	return err == nil && out == "true"
}

// repoVars point git at another repository than -C names (a flowdeck
// called from a git hook inherits them): they are dropped.
var repoVars = []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_COMMON_DIR=",
	"GIT_OBJECT_DIRECTORY=", "GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_NAMESPACE=", "GIT_CEILING_DIRECTORIES="}

// env is the environment every git call gets: the caller's without
// repoVars, with git's output in C (we parse it), no prompts (no one may be
// there to answer) and no pager.
func env(extra []string) []string {
	var e []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(repoVars, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			e = append(e, kv)
		}
	}
	e = append(e, "LC_ALL=C", "LANGUAGE=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
	return append(e, extra...)
}

// run executes git -C dir args and returns its trimmed stdout.
func run(ctx context.Context, dir string, extraEnv []string, args ...string) (string, error) {
	out, _, err := runFull(ctx, dir, extraEnv, args...)
	return strings.TrimSpace(out), err
}

func runFull(ctx context.Context, dir string, extraEnv []string, args ...string) (string, int, error) {
	var stdout bytes.Buffer
	code, err := runTo(ctx, dir, extraEnv, &stdout, args...)
	return stdout.String(), code, err
}

// runTo runs git -C dir args with its stdout written to w, so that a large
// output (an agent's blob) need not be held in memory; it returns git's
// exit status.
func runTo(ctx context.Context, dir string, extraEnv []string, w io.Writer, args ...string) (int, error) {
	if dir == "" {
		// git -C "" is the current directory: never what a caller meant.
		return -1, fmt.Errorf("gitwork: git %s: no directory given", strings.Join(args, " "))
	}
	path, lerr := exec.LookPath("git")
	if lerr != nil {
		return -1, ErrNoGit
	}
	// No hook and no fsmonitor of the repository's runs inside flowdeck's
	// own git commands (an agent can write the config they come from).
	full := append([]string{"-C", dir, "--no-pager", "-c", "core.quotePath=false",
		"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)
	cmd := exec.CommandContext(ctx, path, full...)
	cmd.Env = env(extraEnv)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return code, &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return 0, nil
}

// runFiles is run for a command that reads or writes the work tree's
// files (status, add, commit, merge, worktree add): every filter driver
// of the repository's config is switched off for it (NoFilters).
func runFiles(ctx context.Context, dir string, extraEnv []string, args ...string) (string, error) {
	noFilters, err := NoFilters(dir)
	if err != nil {
		return "", err
	}
	return run(ctx, dir, append(noFilters, extraEnv...), args...)
}

func (r *Repo) git(args ...string) (string, error) {
	return run(context.Background(), r.Dir, nil, args...)
}

var branchPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)

// ValidBranch reports whether name is a branch flowdeck may create: lower
// case words separated by '/', nothing git or a shell reads specially.
func ValidBranch(name string) bool {
	return len(name) <= 200 && branchPattern.MatchString(name) && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, ".lock") && !strings.HasSuffix(name, ".")
}

func checkBranch(name string) error {
	if !ValidBranch(name) {
		return fmt.Errorf("gitwork: %q is not a branch name flowdeck creates", name)
	}
	return nil
}

func ref(branch string) string { return "refs/heads/" + branch }

// CurrentBranch is the branch checked out in the main worktree ("" when
// HEAD is detached) and the commit HEAD names.
func (r *Repo) CurrentBranch() (branch, head string, err error) {
	head, err = r.git("rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", "", err
	}
	b, berr := r.git("symbolic-ref", "--quiet", "HEAD")
	if berr == nil {
		branch = strings.TrimPrefix(b, "refs/heads/")
	}
	return branch, head, nil
}

// BranchHead is the commit branch points at, or "" when it does not exist.
func (r *Repo) BranchHead(branch string) (string, error) {
	out, code, err := runFull(context.Background(), r.Dir, nil, "rev-parse", "--verify", "--quiet", ref(branch)+"^{commit}")
	if err != nil {
		if code == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// EnsureBranch creates branch at from (a branch name or commit) unless it
// exists; it reports whether it created it.
func (r *Repo) EnsureBranch(branch, from string) (bool, error) {
	if err := checkBranch(branch); err != nil {
		return false, err
	}
	if h, err := r.BranchHead(branch); err != nil || h != "" {
		return false, err
	}
	at, err := r.resolve(from)
	if err != nil {
		return false, err
	}
	// The empty old value makes update-ref refuse if someone created the
	// branch meanwhile.
	if _, err := r.git("update-ref", "-m", "flowdeck: create", ref(branch), at, ""); err != nil {
		return false, err
	}
	return true, nil
}

// resolve turns a branch name or commit id into a commit id, never reading
// it as an option. A full commit id is taken as one: a branch named like it
// (anyone may make one) does not stand in for the commit.
func (r *Repo) resolve(name string) (string, error) {
	if !isHex(name) {
		if h, err := r.BranchHead(name); err == nil && h != "" {
			return h, nil
		}
	}
	if strings.HasPrefix(name, "-") {
		return "", fmt.Errorf("gitwork: %q is not a revision", name)
	}
	return r.git("rev-parse", "--verify", "--end-of-options", name+"^{commit}")
}

// DeleteBranch removes branch (whatever it points at); a missing one is fine.
func (r *Repo) DeleteBranch(branch string) error {
	if err := checkBranch(branch); err != nil {
		return err
	}
	h, err := r.BranchHead(branch)
	if err != nil || h == "" {
		return err
	}
	// update-ref, unlike git branch -D, would delete a branch a worktree
	// (the person's own checkout) has checked out.
	if err := r.refuseCheckedOut(branch); err != nil {
		return err
	}
	_, err = r.git("update-ref", "-d", ref(branch), h)
	return err
}

// HeadOf is the commit checked out in the worktree at dir.
func HeadOf(dir string) (string, error) {
	return run(context.Background(), dir, nil, "rev-parse", "--verify", "HEAD^{commit}")
}

// Clean reports whether the worktree at dir has no changes to tracked
// files and, with untracked, no untracked files outside ignored ones.
func Clean(dir string, untracked bool) (bool, error) {
	mode := "--untracked-files=no"
	if untracked {
		mode = "--untracked-files=normal"
	}
	out, err := runFiles(context.Background(), dir, nil, "status", "--porcelain", mode)
	return out == "", err
}

// Exclude adds pattern to the repository's info/exclude unless a line
// already says it, so that flowdeck's own files (worktrees under .flow)
// stay out of git status without touching the user's .gitignore.
func (r *Repo) Exclude(pattern string) error {
	dir, err := r.gitDir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "info", "exclude")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, line := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(line) == pattern {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	prefix := ""
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		prefix = "\n"
	}
	_, err = f.WriteString(prefix + pattern + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// CommitAll commits every change in the worktree at dir with msg and returns
// the new HEAD; with nothing to commit it returns HEAD unchanged.
func CommitAll(dir, msg string) (string, error) {
	if _, err := runFiles(context.Background(), dir, nil, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	if clean, err := Clean(dir, true); err != nil || clean {
		if err != nil {
			return "", err
		}
		return HeadOf(dir)
	}
	if _, err := runFiles(context.Background(), dir, identity(dir), "commit", "--no-verify", "--quiet", "-m", msg); err != nil {
		return "", err
	}
	return HeadOf(dir)
}

// identity makes commits work in a repository without user.name/email
// configured, without overriding one that is.
func identity(dir string) []string {
	if name, err := run(context.Background(), dir, nil, "config", "user.name"); err == nil && name != "" {
		if mail, err := run(context.Background(), dir, nil, "config", "user.email"); err == nil && mail != "" {
			return nil
		}
	}
	var out []string
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "flowdeck", "GIT_AUTHOR_EMAIL": "flowdeck@localhost",
		"GIT_COMMITTER_NAME": "flowdeck", "GIT_COMMITTER_EMAIL": "flowdeck@localhost"} {
		if os.Getenv(k) == "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// absUnder makes path absolute against the repository's top level.
func (r *Repo) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(r.Dir, path)
}
