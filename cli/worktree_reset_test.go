package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// complete validates, reviews and completes feature id, whose worktree wt
// gets files, and returns the integration branch's head after its merge.
func (p *gitProject) complete(id, wt string, files map[string]string) string {
	p.t.Helper()
	for name, text := range files {
		p.write(wt, name, text)
	}
	p.verify(id, "targeted", "true")
	res := p.action(0, "flow", "run", "complete", id, "--outcome", "completed")
	if res.Git == nil || res.Git.Merge == nil || res.Feature.Git.MergeBase == "" {
		p.t.Fatalf("completion of %s: %+v %+v", id, res.Git, res.Feature)
	}
	return res.Git.Merge.Commit
}

// Resetting a completed feature takes its merge back out of the
// integration branch (with the completed features downstream of it), so
// that its new worktree starts without its old work; the other features'
// work stays, and the log replays.
func TestWorktreeResetTakesMergesBack(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[
		{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C","depends_on":["a"]},{"id":"d","title":"D","depends_on":["c","b"]}]}`)
	base := p.git(p.dir, "rev-parse", "main")
	wa, wb := p.claim("a", "w1"), p.claim("b", "w2")
	p.complete("a", wa, map[string]string{"fa.txt": "a\n", "a.txt": "one\nTWO by a\nthree\n"})
	p.complete("b", wb, map[string]string{"fb.txt": "b\n"})
	wc := p.claim("c", "w1")
	p.complete("c", wc, map[string]string{"fc.txt": "c\n"})
	before := p.git(p.dir, "rev-parse", p.integ)

	res := p.action(0, "flow", "reset", "feature", "a")
	if !slices.Equal(res.Git.Reverted, []string{"c", "a"}) || res.Git.Warning != "" {
		t.Fatalf("reset of a: %+v", res.Git)
	}
	head := p.git(p.dir, "rev-parse", p.integ)
	files := strings.Fields(p.git(p.dir, "ls-tree", "--name-only", head))
	if !slices.Equal(files, []string{"a.txt", "fb.txt"}) {
		t.Fatalf("integration branch after the reset holds %v", files)
	}
	if got := p.git(p.dir, "show", head+":a.txt"); got != "one\ntwo\nthree" {
		t.Fatalf("a.txt after the reset: %q", got)
	}
	// Two commits on top of what was there, newest merge taken back first.
	line := strings.Split(p.git(p.dir, "log", "--format=%s", "--first-parent", before+".."+head), "\n")
	if len(line) != 2 || !strings.Contains(line[1], "take back feature c") || !strings.Contains(line[0], "take back feature a") {
		t.Fatalf("the reverts: %q", line)
	}
	if p.git(p.dir, "rev-parse", "main") != base {
		t.Fatal("the reset moved main")
	}
	wa = p.claim("a", "w1")
	if _, err := os.Stat(filepath.Join(wa, "fa.txt")); !os.IsNotExist(err) {
		t.Fatalf("a's new worktree holds its old work (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(wa, "fb.txt")); err != nil {
		t.Fatalf("a's new worktree lacks b's work: %v", err)
	}
	p.must("flow", "verify")
}

// A revert that would undo work merged after the feature (another feature
// changed the same file) refuses the reset with reset_conflict, naming the
// file; nothing changes, in the session or in git.
func TestWorktreeResetConflictChangesNothing(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"x","title":"X"},{"id":"y","title":"Y"},{"id":"z","title":"Z"}]}`)
	wx := p.claim("x", "w1")
	p.complete("x", wx, map[string]string{"a.txt": "one\nTWO by x\nthree\n"})
	wy := p.claim("y", "w2") // starts from x's merge
	p.complete("y", wy, map[string]string{"a.txt": "one\nTWO by x, then y\nthree\n"})
	before := p.git(p.dir, "rev-parse", p.integ)

	res := p.action(ExitRejected, "flow", "reset", "feature", "x")
	if e := res.Error; e == nil || e.Code != model.CodeResetConflict || !strings.Contains(e.Message, "a.txt") || !strings.Contains(e.Message, p.integ) {
		t.Fatalf("reset of x: %+v", res.Error)
	}
	if p.git(p.dir, "rev-parse", p.integ) != before {
		t.Fatal("a refused reset moved the integration branch")
	}
	out := p.must("flow", "status")
	if !strings.Contains(out, "2/3 features completed") {
		t.Fatalf("a refused reset changed the session:\n%s", out)
	}
	// Resetting both (y first, then x) takes both back.
	p.must("flow", "reset", "feature", "y")
	res = p.action(0, "flow", "reset", "feature", "x")
	if !slices.Equal(res.Git.Reverted, []string{"x"}) || p.git(p.dir, "show", p.integ+":a.txt") != "one\ntwo\nthree" {
		t.Fatalf("reset of x after y: %+v", res.Git)
	}
}

// When git itself fails (here: not on PATH), the reset still goes through,
// so that no feature is stuck; the merge stays, and the result says so.
func TestWorktreeResetWithoutGitKeepsTheMerge(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`)
	wa := p.claim("a", "w1")
	p.complete("a", wa, map[string]string{"fa.txt": "a\n"})
	before := p.git(p.dir, "rev-parse", p.integ)
	out, errs, code := flowdeckEnv(t, p.dir, []string{"PATH=" + filepath.Dir(binary)}, "--json", "flow", "reset", "feature", "a")
	if code != 0 || !strings.Contains(out, "stay on "+p.integ) || !strings.Contains(out, `"features_reset"`) {
		t.Fatalf("reset without git: exit %d\n%s%s", code, out, errs)
	}
	if p.git(p.dir, "rev-parse", p.integ) != before {
		t.Fatal("the integration branch moved")
	}
}
