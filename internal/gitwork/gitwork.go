// Package gitwork drives the git command line for flowdeck's parallel
// agents: branches, worktrees, and merges into an integration branch that is
// never checked out. It runs git as users have it, with a fixed locale, no
// prompts and no pager.
//
// The repositories it acts on are written by agents, so every command is
// run as if its config and work tree were hostile: a Repo names its git
// directories and work tree explicitly (resolved once from a directory
// flowdeck trusts, never rediscovered from a path an agent could have
// rewritten), and no hook, fsmonitor, filter, merge or diff driver, signing
// program or background maintenance of the repository's config runs inside
// flowdeck's own git.
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
	"syscall"
	"time"

	"github.com/flowdeck/flowdeck/internal/contain"
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

// Repo is one git work tree of a repository: its top (Dir), its own git
// directory and the repository's common one, each named explicitly on every
// command run on it.
type Repo struct {
	Dir    string
	gitDir string
	common string
}

// Open returns the repository containing dir, at its top level. dir is
// trusted (the project's own checkout): its git directories are resolved
// from it once, and every later command names them.
func Open(dir string) (*Repo, error) {
	out, err := run(context.Background(), dir, nil, "rev-parse", "--path-format=absolute",
		"--show-toplevel", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("gitwork: open %s: unexpected rev-parse output %q", dir, out)
	}
	return &Repo{Dir: lines[0], gitDir: lines[1], common: lines[2]}, nil
}

// GitDir is the work tree's own git directory (a linked worktree's is
// beneath CommonDir's worktrees/).
func (r *Repo) GitDir() string { return r.gitDir }

// CommonDir is the repository's git directory, shared by its worktrees.
func (r *Repo) CommonDir() string { return r.common }

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(dir string) bool {
	if !Available() {
		return false
	}
	out, err := run(context.Background(), dir, nil, "rev-parse", "--is-inside-work-tree")
	return err == nil && out == "true"
}

// repoVars point git at another repository than the caller names (a
// flowdeck called from a git hook inherits them): they are dropped, and a
// Repo sets its own.
var repoVars = []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_COMMON_DIR=",
	"GIT_OBJECT_DIRECTORY=", "GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_NAMESPACE=", "GIT_CEILING_DIRECTORIES=",
	"GIT_CONFIG_COUNT=", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_CONFIG_PARAMETERS=", "GIT_EXTERNAL_DIFF=",
	"GIT_EDITOR=", "GIT_SEQUENCE_EDITOR="}

// env is the environment every git call gets: the caller's without
// repoVars, with git's output in C (we parse it), no prompts (no one may be
// there to answer), no pager and no editor (":" is git's "do not start
// one"): a command that would need one fails instead.
func env(extra []string) []string {
	var e []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(repoVars, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			e = append(e, kv)
		}
	}
	e = append(e, "LC_ALL=C", "LANGUAGE=C", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0", "GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:")
	return append(e, extra...)
}

// safety is the configuration every git command flowdeck runs gets, over
// whatever the repository's config says (an agent can write that config,
// or a worktree's own, from its worktree). Each entry keeps one kind of
// repository-controlled program from running inside flowdeck: hooks,
// fsmonitor, signing and signature checks (gpg programs), automatic gc and
// maintenance (they outlive the command), recursion into submodules (whose
// config is not checked), and a diff of a submodule's content. Filter,
// merge and diff drivers are per name: see drivers. The system config is
// still read: only an administrator can write it, and it may hold what git
// needs to run at all (safe.directory).
var safety = []string{
	"core.quotePath=false",
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"commit.gpgSign=false",
	"tag.gpgSign=false",
	"merge.verifySignatures=false",
	"log.showSignature=false",
	"gpg.program=false",
	"gpg.openpgp.program=false",
	"gpg.x509.program=false",
	"gpg.ssh.program=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"submodule.recurse=false",
	"diff.submodule=short",
	"merge.stat=false",
}

// run executes git in dir with args and returns its trimmed stdout.
func run(ctx context.Context, dir string, extraEnv []string, args ...string) (string, error) {
	out, _, err := runFull(ctx, dir, extraEnv, args...)
	return strings.TrimSpace(out), err
}

func runFull(ctx context.Context, dir string, extraEnv []string, args ...string) (string, int, error) {
	var stdout bytes.Buffer
	code, err := runTo(ctx, dir, extraEnv, &stdout, args...)
	return stdout.String(), code, err
}

// runTo runs git in dir with args, its stdout written to w (a large
// output, an agent's blob, need not be held in memory); it returns git's
// exit status. Without GIT_DIR in extraEnv git finds the repository from
// dir: only Open and IsRepo do that, from a directory flowdeck trusts.
func runTo(ctx context.Context, dir string, extraEnv []string, w io.Writer, args ...string) (int, error) {
	if dir == "" {
		// git -C "" is the current directory: never what a caller meant.
		return -1, fmt.Errorf("gitwork: git %s: no directory given", strings.Join(args, " "))
	}
	path, lerr := exec.LookPath("git")
	if lerr != nil {
		return -1, ErrNoGit
	}
	full := []string{"-C", dir, "--no-pager"}
	for _, kv := range safety {
		full = append(full, "-c", kv)
	}
	limit := timeout()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(full, args...)...)
	cmd.Env = env(extraEnv)
	// git may start git (worktree add checks out, status looks into
	// submodules): the whole group goes when the time is up, and a child
	// left holding the output pipe does not keep Wait waiting.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("%w: it did not finish within %s (a FIFO the repository's files or git directory hold "+
				"makes git wait for ever; $%s sets the limit)", ErrTimeout, limit, timeoutVar)
		}
		return code, &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return 0, nil
}

// ErrTimeout is a git command flowdeck stopped: it ran longer than the
// limit. An agent can make git wait for ever (a FIFO where git reads a
// file: info/exclude, a .gitignore), and flowdeck's git runs under the git
// lock, which every other git action then waits for.
var ErrTimeout = errors.New("gitwork: git was stopped")

// timeoutVar names the limit on one git command (a Go duration); the
// default is far above what git takes on any repository it is fast on.
const timeoutVar = "FLOWDECK_GIT_TIMEOUT"

func timeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(timeoutVar)); err == nil && d > 0 {
		return d
	}
	return 2 * time.Minute
}

// vars name r's git directories and work tree for git, in place of
// discovery: a .git file or core.worktree an agent rewrote is never read.
func (r *Repo) vars(extra []string) []string {
	return append([]string{"GIT_DIR=" + r.gitDir, "GIT_COMMON_DIR=" + r.common, "GIT_WORK_TREE=" + r.Dir}, extra...)
}

// run, runFull and runTo run git on r, in r.Dir.
func (r *Repo) run(extraEnv []string, args ...string) (string, error) {
	return run(context.Background(), r.Dir, r.vars(extraEnv), args...)
}

func (r *Repo) runFull(extraEnv []string, args ...string) (string, int, error) {
	return runFull(context.Background(), r.Dir, r.vars(extraEnv), args...)
}

func (r *Repo) runTo(w io.Writer, args ...string) (int, error) {
	return runTo(context.Background(), r.Dir, r.vars(nil), w, args...)
}

// runFiles is run for a command that reads or writes the work tree's
// files or merges them (status, add, commit, merge, merge-tree, worktree
// add): every filter, merge and diff driver of the repository's config
// is switched off for it (drivers). in is the directory it runs in (r.Dir,
// or one below it).
func (r *Repo) runFiles(in string, extraEnv []string, args ...string) (string, error) {
	off, err := r.drivers()
	if err != nil {
		return "", err
	}
	return run(context.Background(), in, r.vars(append(off, extraEnv...)), args...)
}

func (r *Repo) git(args ...string) (string, error) {
	return r.run(nil, args...)
}

var branchPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)

// ValidBranch reports whether name is a branch flowdeck may create: lower
// case words separated by '/', nothing git or a shell reads specially.
func ValidBranch(name string) bool {
	return len(name) <= 200 && branchPattern.MatchString(name) && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, ".lock") && !strings.Contains(name, ".lock/") && !strings.HasSuffix(name, ".")
}

func checkBranch(name string) error {
	if !ValidBranch(name) {
		return fmt.Errorf("gitwork: %q is not a branch name flowdeck creates", name)
	}
	return nil
}

func ref(branch string) string { return "refs/heads/" + branch }

// CurrentBranch is the branch checked out in r's work tree ("" when HEAD
// is detached) and the commit HEAD names.
func (r *Repo) CurrentBranch() (branch, head string, err error) {
	head, err = r.Head()
	if err != nil {
		return "", "", err
	}
	b, berr := r.git("symbolic-ref", "--quiet", "HEAD")
	if berr == nil {
		branch = strings.TrimPrefix(b, "refs/heads/")
	}
	return branch, head, nil
}

// Head is the commit checked out in r's work tree.
func (r *Repo) Head() (string, error) {
	return r.git("rev-parse", "--verify", "HEAD^{commit}")
}

// BranchHead is the commit branch points at, or "" when it does not exist.
func (r *Repo) BranchHead(branch string) (string, error) {
	out, code, err := r.runFull(nil, "rev-parse", "--verify", "--quiet", ref(branch)+"^{commit}")
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

// Clean reports whether r's work tree has no changes to tracked files
// and, with untracked, no untracked files outside ignored ones.
// Submodules are not looked into: their config is not checked.
func (r *Repo) Clean(untracked bool) (bool, error) {
	mode := "--untracked-files=no"
	if untracked {
		mode = "--untracked-files=normal"
	}
	out, err := r.runFiles(r.Dir, nil, "status", "--porcelain", "--ignore-submodules=all", mode)
	return out == "", err
}

// Exclude adds pattern to the repository's info/exclude unless a line
// already says it, so that flowdeck's own files (worktrees under .flow)
// stay out of git status without touching the user's .gitignore. The file
// is opened beneath the git directory with contain.OpenRegular: a link an
// agent planted there (to make flowdeck append to a file elsewhere) is not
// followed, and a FIFO or device is refused without blocking.
func (r *Repo) Exclude(pattern string) error {
	root, err := os.OpenRoot(r.common)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll("info", 0o755); err != nil {
		return err
	}
	f, err := contain.OpenRegular(root, filepath.Join("info", "exclude"), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	old, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(line) == pattern {
			return nil
		}
	}
	prefix := ""
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		prefix = "\n"
	}
	if _, err := f.WriteString(prefix + pattern + "\n"); err != nil {
		return err
	}
	return f.Close()
}

// CommitAll commits every change in r's work tree with msg and returns the
// new HEAD; with nothing to commit it returns HEAD unchanged.
func (r *Repo) CommitAll(msg string) (string, error) {
	if _, err := r.runFiles(r.Dir, nil, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	if clean, err := r.Clean(true); err != nil || clean {
		if err != nil {
			return "", err
		}
		return r.Head()
	}
	if _, err := r.runFiles(r.Dir, r.identity(), "commit", "--no-verify", "--quiet", "-m", msg); err != nil {
		return "", err
	}
	return r.Head()
}

// identity makes commits work in a repository without user.name/email
// configured, without overriding one that is.
func (r *Repo) identity() []string {
	if name, err := r.git("config", "user.name"); err == nil && name != "" {
		if mail, err := r.git("config", "user.email"); err == nil && mail != "" {
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

// abs makes path absolute against the repository's top level.
func (r *Repo) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(r.Dir, path)
}
