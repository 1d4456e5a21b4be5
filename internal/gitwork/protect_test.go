package gitwork

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// commitOn makes a commit on branch (created from main) in a scratch
// worktree: files written (content "" removes the file), everything staged
// with -f, past any .gitignore, as a hostile agent would.
func commitOn(t *testing.T, r *Repo, branch string, files map[string]string) string {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "wt")
	gitT(t, r.Dir, "worktree", "add", "-q", "-b", branch, wt, "main")
	for name, text := range files {
		p := filepath.Join(wt, filepath.FromSlash(name))
		if text == "" {
			gitT(t, wt, "rm", "-q", "-r", "--", name)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, wt, name, text)
		gitT(t, wt, "add", "-f", "--", name)
	}
	gitT(t, wt, "commit", "-q", "-m", "hostile")
	head := gitT(t, wt, "rev-parse", "HEAD")
	gitT(t, r.Dir, "worktree", "remove", "--force", wt)
	return head
}

// Protected names the paths at or below the project's .flow (where the
// project sits in the repository) and those the person's checkout ignores
// and does not track, by the person's own ignore rules, whatever the
// agent's .gitignore says.
func TestProtected(t *testing.T) {
	r := newRepo(t)
	if err := os.MkdirAll(filepath.Join(r.Dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, r.Dir, ".gitignore", "*.log\nbuild/\n.env\n")
	write(t, r.Dir, "sub/.gitignore", "local.txt\n")
	write(t, r.Dir, "keep.log", "tracked on purpose\n")
	gitT(t, r.Dir, "add", ".gitignore", "sub/.gitignore")
	gitT(t, r.Dir, "add", "-f", "keep.log")
	gitT(t, r.Dir, "commit", "-q", "-m", "ignores")
	base := gitT(t, r.Dir, "rev-parse", "HEAD")
	tip := commitOn(t, r, "hostile", map[string]string{
		"sub/.flow/flowdeck.db": "x", ".flow/other": "x", ".env": "x", "deep/.env": "x", "x.log": "x",
		"keep.log": "changed", "build/o": "x", "sub/local.txt": "x", "ok.txt": "x",
		".gitignore": "!.env\n", "a.txt": "",
	})
	if got, err := r.FlowPath(filepath.Join(r.Dir, "sub")); err != nil || got != "sub/.flow" {
		t.Fatalf("FlowPath of sub: %q %v", got, err)
	}
	if got, err := r.FlowPath(r.Dir); err != nil || got != ".flow" {
		t.Fatalf("FlowPath of the top: %q %v", got, err)
	}
	if got, err := r.FlowPath(t.TempDir()); err == nil {
		t.Fatalf("FlowPath outside the repository: %q", got)
	}
	changes, err := r.Changes(base, tip)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Protected("sub/.flow", tip, changes)
	want := []string{".env", "build/o", "deep/.env", "sub/.flow/flowdeck.db", "sub/local.txt", "x.log"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Protected: %q %v, want %q", got, err, want)
	}
	gitT(t, r.Dir, "branch", "-q", "main2", "main")
	if got, err := r.BranchProtected(".flow", "main2", "hostile"); err != nil || !slices.Contains(got, ".flow/other") || slices.Contains(got, "sub/.flow/flowdeck.db") {
		t.Fatalf("BranchProtected with the project at the top: %q %v", got, err)
	}
}

// Land refuses, before anything moves, a change to .flow or an ignored
// path, and a path where the checkout has a file git does not track (or a
// file where the land needs a directory); the checkout is as it was.
func TestLandRefusesProtectedAndInTheWay(t *testing.T) {
	for name, tc := range map[string]struct {
		files         map[string]string
		setup         func(t *testing.T, dir string)
		protected, in []string
	}{
		"flow": {files: map[string]string{".flow/flowdeck.db": "x", "ok.txt": "x"}, protected: []string{".flow/flowdeck.db"}},
		"ignored": {files: map[string]string{".env": "x"}, protected: []string{".env"},
			setup: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte(".env\n"), 0o644)
			}},
		"untracked": {files: map[string]string{"notes.txt": "x", "d/f.txt": "x", "ok.txt": "x"}, in: []string{"d", "notes.txt"},
			setup: func(t *testing.T, dir string) {
				write(t, dir, "notes.txt", "mine")
				write(t, dir, "d", "a file where the land needs a directory")
			}},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRepo(t)
			tip := commitOn(t, r, "flowdeck/s", tc.files)
			if tc.setup != nil {
				tc.setup(t, r.Dir)
			}
			head := gitT(t, r.Dir, "rev-parse", "HEAD")
			res, err := r.Land("flowdeck/s", "land", ".flow")
			if err != nil || !slices.Equal(res.Protected, tc.protected) || !slices.Equal(res.InTheWay, tc.in) || res.Commit != head {
				t.Fatalf("land of %s: %+v %v", tip, res, err)
			}
			if gitT(t, r.Dir, "rev-parse", "HEAD") != head {
				t.Fatal("a refused land moved HEAD")
			}
			if _, err := os.Stat(filepath.Join(r.Dir, "ok.txt")); err == nil {
				t.Fatal("a refused land wrote files")
			}
		})
	}
}

// What the check before the merge leaves to git (a directory that the land
// turns into a file, emptied of its tracked files but holding an ignored
// one) git refuses, told not to overwrite ignored files: the land reports
// it in InTheWay, not as git's error, and the ignored file stays.
func TestLandReportsGitsRefusal(t *testing.T) {
	r := newRepo(t)
	if err := os.MkdirAll(filepath.Join(r.Dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, r.Dir, "d/t.txt", "tracked\n")
	gitT(t, r.Dir, "add", "d/t.txt")
	gitT(t, r.Dir, "commit", "-q", "-m", "d")
	// A file d replaces the directory d on the branch.
	wt := filepath.Join(t.TempDir(), "wt")
	gitT(t, r.Dir, "worktree", "add", "-q", "-b", "flowdeck/s", wt, "main")
	gitT(t, wt, "rm", "-q", "-r", "d")
	write(t, wt, "d", "a file now\n")
	gitT(t, wt, "add", "d")
	gitT(t, wt, "commit", "-q", "-m", "d is a file")
	gitT(t, r.Dir, "worktree", "remove", "--force", wt)
	os.WriteFile(filepath.Join(r.Dir, ".git", "info", "exclude"), []byte("*.ign\n"), 0o644)
	write(t, r.Dir, "d/cache.ign", "the person's\n")
	head := gitT(t, r.Dir, "rev-parse", "HEAD")
	res, err := r.Land("flowdeck/s", "land", ".flow")
	if err != nil || !slices.Equal(res.InTheWay, []string{"d"}) {
		t.Fatalf("land: %+v %v", res, err)
	}
	if got, err := os.ReadFile(filepath.Join(r.Dir, "d", "cache.ign")); err != nil || string(got) != "the person's\n" || gitT(t, r.Dir, "rev-parse", "HEAD") != head {
		t.Fatalf("the ignored file %q (%v), or HEAD moved", got, err)
	}
}
