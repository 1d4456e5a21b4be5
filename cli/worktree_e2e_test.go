package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// gitProject is a git repository with one commit on main and a plan file,
// driven through the real binary.
type gitProject struct {
	t     *testing.T
	dir   string
	integ string // the session's integration branch
}

func newGitProject(t *testing.T, plan string) *gitProject {
	t.Helper()
	if !gitwork.Available() {
		t.Skip("git is not installed: the worktree end-to-end tests need the git program on PATH")
	}
	p := &gitProject{t: t, dir: t.TempDir()}
	p.git(p.dir, "init", "-q", "-b", "main")
	p.git(p.dir, "config", "user.name", "tester")
	p.git(p.dir, "config", "user.email", "tester@example.com")
	p.write(p.dir, "a.txt", "one\ntwo\nthree\n")
	p.git(p.dir, "add", "a.txt")
	p.git(p.dir, "commit", "-q", "-m", "initial")
	p.write(p.dir, "plan.json", plan)
	p.must("flow", "plan", "start", "wt")
	p.must("flow", "plan", "apply", filepath.Join(p.dir, "plan.json"))
	p.must("flow", "plan", "approve")
	var st struct{ Session struct{ ID string } }
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "status")), &st); err != nil {
		t.Fatal(err)
	}
	p.integ = "flowdeck/" + st.Session.ID
	return p
}

func (p *gitProject) git(dir string, args ...string) string {
	p.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (p *gitProject) write(dir, name, text string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *gitProject) must(args ...string) string {
	p.t.Helper()
	out, errs, code := flowdeck(p.t, p.dir, args...)
	if code != 0 {
		p.t.Fatalf("%v: exit %d: %s %s", args, code, out, errs)
	}
	return out
}

// action runs a --json flow action and decodes its result.
func (p *gitProject) action(wantCode int, args ...string) *ops.ActionResult {
	p.t.Helper()
	out, errs, code := flowdeck(p.t, p.dir, append([]string{"--json"}, args...)...)
	if code != wantCode {
		p.t.Fatalf("%v: exit %d, want %d: %s %s", args, code, wantCode, out, errs)
	}
	var res ops.ActionResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		p.t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return &res
}

// claim starts feature id for agent and checks its worktree and branch.
func (p *gitProject) claim(id, agent string) string {
	p.t.Helper()
	res := p.action(0, "flow", "run", "start", id, "--agent", agent)
	g := res.Git
	if g == nil || g.Warning != "" || g.Branch != p.integ+"."+id || g.Worktree != filepath.Join(p.dir, ".flow", "worktrees", id) {
		p.t.Fatalf("claim of %s: git report %+v", id, g)
	}
	if br := p.git(g.Worktree, "symbolic-ref", "--short", "HEAD"); br != g.Branch {
		p.t.Fatalf("worktree of %s is on %q, want %s", id, br, g.Branch)
	}
	return g.Worktree
}

// verify records observed evidence through flowdeck run --feature (run in
// the worktree; what the agent left there is committed first) and an
// approved review; it returns the commit the evidence names.
func (p *gitProject) verify(id, scope string, check ...string) string {
	p.t.Helper()
	out := p.must(append([]string{"--json", "run", "--feature", id, "--scope", scope, "--"}, check...)...)
	var run struct {
		OK       bool
		Evidence struct{ Commit string }
		Dir      string
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || !run.OK || len(run.Evidence.Commit) != 40 {
		p.t.Fatalf("run --feature %s: %v %s", id, err, out)
	}
	if want := filepath.Join(".flow", "worktrees", id); !strings.HasSuffix(run.Dir, want) {
		p.t.Fatalf("run --feature %s ran in %q, not its worktree", id, run.Dir)
	}
	p.must("flow", "review", id, "--decision", "approved")
	return run.Evidence.Commit
}

func (p *gitProject) gone(path, branch string) {
	p.t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		p.t.Fatalf("worktree %s still exists (%v)", path, err)
	}
	if out, err := exec.Command("git", "-C", p.dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Output(); err == nil {
		p.t.Fatalf("branch %s still exists at %s", branch, out)
	}
}

// Two agents work two features of a max_parallel 2 plan in their own
// worktrees; each completion merges into flowdeck/SESSION and removes the
// worktree; the dependent feature starts from the merged work; land puts it
// all on main.
func TestWorktreesEndToEnd(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[
		{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C","depends_on":["a","b"]}]}`)
	base := p.git(p.dir, "rev-parse", "HEAD")
	wa, wb := p.claim("a", "w1"), p.claim("b", "w2")
	var status struct {
		Session struct {
			Git  *model.GitSetup
			Plan struct{ Features []ops.FeatureView }
		}
	}
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "status")), &status); err != nil {
		t.Fatal(err)
	}
	if g := status.Session.Git; g == nil || g.Integration != p.integ || g.Base != "main" || g.BaseCommit != base {
		t.Fatalf("status git setup %+v", g)
	}
	if f := status.Session.Plan.Features[1]; f.Git == nil || f.Git.Worktree != ".flow/worktrees/b" {
		t.Fatalf("status of b: %+v", f.Git)
	}
	if out, _, code := flowdeck(t, p.dir, "--json", "flow", "land"); code != ExitRejected || oneError(t, "early land", out).Code != ops.CodeNotLandable {
		t.Fatalf("land before completion: exit %d %s", code, out)
	}

	p.write(wa, "fa.txt", "a\n")
	commitA := p.verify("a", "targeted", "test", "-f", "fa.txt") // fa.txt exists only in a's worktree
	if got := p.git(wa, "rev-parse", "HEAD"); got != commitA {
		t.Fatalf("evidence commit %s, worktree HEAD %s", commitA, got)
	}
	res := p.action(0, "flow", "run", "complete", "a", "--outcome", "completed")
	if m := res.Git.Merge; m == nil || !m.FastForward || m.Commit != commitA || res.Feature.Git.MergeCommit != commitA {
		t.Fatalf("completion of a: %+v %+v", res.Git, res.Feature.Git)
	}
	p.gone(wa, p.integ+".a")

	// The agent of b works from inside its worktree, without --dir.
	p.write(wb, "fb.txt", "b\n")
	cmd := exec.Command(binary, "run", "--feature", "b", "--", "test", "-f", "fb.txt")
	cmd.Dir = wb
	if out, errs, code := runProcess(t, cmd); code != 0 {
		t.Fatalf("run in b's worktree: exit %d %s %s", code, out, errs)
	}
	p.must("flow", "review", "b", "--decision", "approved")
	res = p.action(0, "flow", "run", "complete", "b", "--outcome", "completed")
	mergeB := res.Git.Merge.Commit
	if res.Git.Merge.FastForward || !strings.Contains(p.git(p.dir, "log", "-1", "--format=%s", mergeB), "merge feature b") {
		t.Fatalf("b merged as %+v", res.Git.Merge)
	}

	wc := p.claim("c", "w1")
	p.write(wc, "fc.txt", "c\n")
	p.verify("c", "broad", "sh", "-c", "test -f fa.txt && test -f fb.txt && test -f fc.txt")
	p.must("flow", "review", "--final", "--decision", "approved")
	p.action(0, "flow", "run", "complete", "c", "--outcome", "completed")
	var done struct {
		Session     struct{ Status model.SessionStatus }
		NextCommand string `json:"next_command"`
	}
	if json.Unmarshal([]byte(p.must("--json", "flow", "status")), &done); done.Session.Status != model.StatusCompleted {
		t.Fatalf("session is %q, not completed", done.Session.Status)
	}
	// Completed is not finished while the work is only on the integration
	// branch: the next step is to land it.
	if status := p.must("flow", "status"); done.NextCommand != "flowdeck flow land" || !strings.Contains(status, "completed, not landed") {
		t.Fatalf("completed session: next %q, status\n%s", done.NextCommand, status)
	}
	p.gone(wc, p.integ+".c")
	if list := p.git(p.dir, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("worktrees left:\n%s", list)
	}
	// One merge per feature: three distinct commits on the integration
	// branch's first-parent line, b's a merge commit naming it.
	line := strings.Fields(p.git(p.dir, "rev-list", "--first-parent", base+".."+p.integ))
	if len(line) != 3 || line[1] != mergeB {
		t.Fatalf("integration history %v", line)
	}
	p.must("flow", "verify")

	out := p.must("flow", "land")
	if !strings.Contains(out, "main") || p.git(p.dir, "rev-parse", "main") != p.git(p.dir, "rev-parse", p.integ) ||
		!strings.Contains(out, "next: flowdeck flow plan start GOAL") {
		t.Fatalf("land: %s", out)
	}
	if status := p.must("flow", "status"); !strings.Contains(status, "completed, landed into main") ||
		!strings.Contains(status, "next: flowdeck flow plan start GOAL") {
		t.Fatalf("status after land:\n%s", status)
	}
	for _, f := range []string{"fa.txt", "fb.txt", "fc.txt"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err != nil {
			t.Fatalf("%s not on main after land", f)
		}
	}
}

// Two features edit the same line: the second completion is refused with
// merge_conflict, its worktree kept; resolved by hand it completes. Work
// changed after its validation is refused with stale_evidence. A reset
// removes the worktrees of every feature it cascades to.
func TestWorktreeConflictAndReset(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[
		{"id":"x","title":"X"},{"id":"y","title":"Y"},{"id":"z","title":"Z","depends_on":["y"]},
		{"id":"w","title":"W","depends_on":["z"]}]}`)
	wx, wy := p.claim("x", "w1"), p.claim("y", "w2")
	p.write(wx, "a.txt", "one\nTWO by x\nthree\n")
	p.verify("x", "targeted", "true")
	p.write(wy, "a.txt", "one\nTWO by y\nthree\n")
	p.verify("y", "targeted", "true")
	// x changes after its validation: the leftover is committed, and not
	// merged before it is validated (and reviewed) again: the evidence is
	// of other code, and the refusal names the file.
	p.write(wx, "late.txt", "late\n")
	if e := p.action(ExitRejected, "flow", "run", "complete", "x", "--outcome", "completed").Error; e == nil || e.Code != model.CodeStaleEvidence || !strings.Contains(e.Message, "late.txt") {
		t.Fatalf("completion after a late change: %+v", e)
	}
	if p.git(wx, "status", "--porcelain") != "" {
		t.Fatal("the late change was not committed")
	}
	p.verify("x", "targeted", "test", "-f", "late.txt")
	p.action(0, "flow", "run", "complete", "x", "--outcome", "completed")
	before := p.git(p.dir, "rev-parse", p.integ)

	res := p.action(ExitRejected, "flow", "run", "complete", "y", "--outcome", "completed")
	e := res.Error
	if e == nil || e.Code != model.CodeMergeConflict || !strings.Contains(e.Message, "a.txt") ||
		!strings.Contains(e.Recovery.Hint, ".flow/worktrees/y") || !strings.Contains(e.Recovery.Hint, "flowdeck flow reset feature y") {
		t.Fatalf("conflict refusal %+v", e)
	}
	if res.Feature == nil || res.Feature.Git == nil || !slices.Equal(res.Feature.Git.Conflicts, []string{"a.txt"}) {
		t.Fatalf("conflict not on the feature: %+v", res.Feature)
	}
	if _, err := os.Stat(wy); err != nil || p.git(p.dir, "rev-parse", p.integ) != before {
		t.Fatal("a conflict removed the worktree or moved the integration branch")
	}

	// Resolved by hand in the worktree, validated and reviewed again.
	exec.Command("git", "-C", wy, "merge", "-q", p.integ).Run() // conflicts, by design
	p.write(wy, "a.txt", "one\nTWO by x and y\nthree\n")
	p.git(wy, "add", "a.txt")
	p.git(wy, "commit", "-q", "--no-edit")
	p.verify("y", "targeted", "grep", "-q", "x and y", "a.txt")
	res = p.action(0, "flow", "run", "complete", "y", "--outcome", "completed")
	if res.Git.Merge == nil || len(res.Git.Merge.Conflicts) > 0 || !strings.Contains(p.git(p.dir, "show", p.integ+":a.txt"), "x and y") {
		t.Fatalf("resolved completion: %+v", res.Git)
	}
	p.gone(wy, p.integ+".y")

	wz := p.claim("z", "w1")
	res = p.action(0, "flow", "reset", "feature", "y")
	if !slices.Contains(res.Git.Removed, wz) {
		t.Fatalf("reset removed %v, want %s", res.Git.Removed, wz)
	}
	p.gone(wz, p.integ+".z")
	p.must("flow", "verify")
}

// Three agents complete at once: the merges go one after the other under
// the git lock, none is lost, and the log replays.
func TestWorktreeConcurrentCompletions(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":3,"features":[
		{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C"},{"id":"d","title":"D","depends_on":["a","b","c"]}]}`)
	ids := []string{"a", "b", "c"}
	for _, id := range ids {
		wt := p.claim(id, "w-"+id)
		p.write(wt, id+".txt", id+"\n")
		p.verify(id, "targeted", "test", "-f", id+".txt")
	}
	results := make(chan error, len(ids))
	for _, id := range ids {
		go func() {
			out, err := exec.Command(binary, "--dir", p.dir, "--json", "flow", "run", "complete", id, "--outcome", "completed").CombinedOutput()
			if err != nil {
				err = fmt.Errorf("completion of %s: %v\n%s", id, err, out)
			}
			results <- err
		}()
	}
	for range ids {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	files := p.git(p.dir, "ls-tree", "--name-only", p.integ)
	for _, id := range ids {
		if !strings.Contains(files, id+".txt") {
			t.Fatalf("%s.txt lost from the integration branch: %s", id, files)
		}
	}
	p.must("flow", "verify")
}

// flow verify places the feature's run once: what one command leaves in the
// worktree is not committed before the next, so every command's evidence
// names the same commit.
func TestWorktreeVerifyPlacesOnce(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[
		{"id":"x","title":"X","verification":["echo j > junk.txt","true"]}]}`)
	wx := p.claim("x", "w1")
	p.must("flows", "verify", "x")
	var st struct {
		Session struct {
			Plan struct {
				Features []struct{ Validations []struct{ Commit string } }
			}
		}
	}
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "status", "--full")), &st); err != nil {
		t.Fatal(err)
	}
	head := p.git(wx, "rev-parse", "HEAD")
	v := st.Session.Plan.Features[0].Validations
	if len(v) != 2 || v[0].Commit != head || v[1].Commit != head {
		t.Fatalf("evidence commits %+v, want both %s", v, head)
	}
}
