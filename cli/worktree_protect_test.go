package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The attack of issue 21: an agent commits, besides its work, what is not
// the project's code: the project's database, a .env the person's
// .gitignore ignores, and a .flow/worktrees symlink, whose landing would
// delete the other agents' live worktrees. The codes are spelled out (not
// the constants) so that these tests also run against a flowdeck without
// them.

const personEnv = "PERSON_SECRET=mine\n"

// protectPerson gives the person's checkout a .gitignore that ignores .env
// and flowdeck's .flow, as many do (committed on main), and their own .env.
// git merge overwrites ignored files by default.
func (p *gitProject) protectPerson() {
	p.t.Helper()
	p.write(p.dir, ".gitignore", ".env\n.flow/\n")
	p.git(p.dir, "add", ".gitignore")
	p.git(p.dir, "commit", "-q", "-m", "ignore .env")
	p.write(p.dir, ".env", personEnv)
}

// attack commits into worktree wt a file of work and the hostile paths,
// force-added past any .gitignore.
func (p *gitProject) attack(wt string) {
	p.t.Helper()
	if err := os.MkdirAll(filepath.Join(wt, ".flow"), 0o755); err != nil {
		p.t.Fatal(err)
	}
	p.write(wt, "work.txt", "the feature's work\n")
	p.write(wt, ".flow/flowdeck.db", "not a database\n")
	p.write(wt, ".env", "AGENT_SECRET=theirs\n")
	if err := os.Symlink("nowhere", filepath.Join(wt, ".flow", "worktrees")); err != nil {
		p.t.Fatal(err)
	}
	p.git(wt, "add", "-f", "--", "work.txt", ".flow/flowdeck.db", ".env", ".flow/worktrees")
	p.git(wt, "commit", "-q", "-m", "work (and more)")
}

// intact checks that nothing outside the project's code changed: the
// person's .env, the database (it opens, verify passes, and the session's
// log holds at least the events acknowledged before, acked), and the other
// agent's worktree with its uncommitted file.
func (p *gitProject) intact(other string, acked int) {
	p.t.Helper()
	if got, err := os.ReadFile(filepath.Join(p.dir, ".env")); err != nil || string(got) != personEnv {
		p.t.Fatalf("the person's .env is now %q (%v)", got, err)
	}
	if out, errs, code := flowdeck(p.t, p.dir, "flow", "verify"); code != 0 {
		p.t.Fatalf("flow verify: exit %d %s %s", code, out, errs)
	}
	if n := len(p.events()); n < acked {
		p.t.Fatalf("the log holds %d events, %d were acknowledged", n, acked)
	}
	if other != "" {
		if got, err := os.ReadFile(filepath.Join(other, "draft.txt")); err != nil || string(got) != "uncommitted\n" {
			p.t.Fatalf("the other agent's uncommitted work: %q %v", got, err)
		}
		if list := p.git(p.dir, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+other+"\n") {
			p.t.Fatalf("the other agent's worktree is no longer registered:\n%s", list)
		}
	}
}

// events is the active session's event log, through the binary.
func (p *gitProject) events() []json.RawMessage {
	p.t.Helper()
	id := strings.TrimPrefix(p.integ, "flowdeck/")
	var h struct{ Events []json.RawMessage }
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "history", id)), &h); err != nil {
		p.t.Fatal(err)
	}
	return h.Events
}

// wantNamed checks a refusal's code and that its message names every path.
func wantNamed(t *testing.T, what, out, code string, paths ...string) {
	t.Helper()
	e := oneError(t, what, out)
	if e.Code != code || e.Recovery.Hint == "" {
		t.Fatalf("%s: %s, want %s", what, out, code)
	}
	for _, path := range paths {
		if !strings.Contains(e.Message, path) {
			t.Fatalf("%s: the message does not name %s: %s", what, path, e.Message)
		}
	}
}

// The person validates, reviews and completes the hostile feature: the
// completion is refused with protected_paths, nothing is merged, and the
// diff the review reads warns of them. The person's files, the database and
// the other agent's worktree are as they were.
func TestCompletionRefusesWhatIsNotTheProjectsCode(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`)
	p.protectPerson()
	wa, wb := p.claim("a", "w1"), p.claim("b", "w2")
	p.write(wb, "draft.txt", "uncommitted\n")
	p.attack(wa)
	p.verify("a", "targeted", "test", "-f", "work.txt")

	_, errs, code := flowdeck(t, p.dir, "diff", "a")
	if code != 0 || !strings.Contains(errs, "not the project's code") || !strings.Contains(errs, ".flow/flowdeck.db") || !strings.Contains(errs, ".env") {
		t.Fatalf("flowdeck diff a: exit %d, no warning naming the paths: %s", code, errs)
	}

	before := p.git(p.dir, "rev-parse", p.integ)
	acked := len(p.events())
	out, errs, code := flowdeck(t, p.dir, "--json", "flow", "run", "complete", "a", "--outcome", "completed")
	if code != ExitRejected {
		t.Fatalf("completion: exit %d, want %d: %s %s", code, ExitRejected, out, errs)
	}
	wantNamed(t, "completion", out, "protected_paths", ".flow/flowdeck.db", ".env", ".flow/worktrees")
	if p.git(p.dir, "rev-parse", p.integ) != before {
		t.Fatal("a refused completion moved the integration branch")
	}
	if _, err := os.Stat(wa); err != nil {
		t.Fatalf("the refused feature's worktree is gone: %v", err)
	}
	p.intact(wb, acked)

	// Land (forced: the session is not complete) has nothing of it to land.
	if out, errs, code := flowdeck(t, p.dir, "--json", "flow", "land", "--force"); code != 0 {
		t.Fatalf("land: exit %d %s %s", code, out, errs)
	}
	p.intact(wb, acked)
}

// The agent moves the integration branch onto its hostile commit itself
// (its worktree shares the repository's refs): land checks what it lands,
// refuses with protected_paths before anything moves, and the person's
// files, the database and the other worktree are untouched.
func TestLandRefusesWhatIsNotTheProjectsCode(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`)
	p.protectPerson()
	wa, wb := p.claim("a", "w1"), p.claim("b", "w2")
	p.write(wb, "draft.txt", "uncommitted\n")
	p.attack(wa)
	p.git(wa, "update-ref", "refs/heads/"+p.integ, "HEAD")

	head := p.git(p.dir, "rev-parse", "HEAD")
	acked := len(p.events())
	out, errs, code := flowdeck(t, p.dir, "--json", "flow", "land", "--force")
	if code != ExitRejected {
		t.Fatalf("land: exit %d, want %d: %s %s", code, ExitRejected, out, errs)
	}
	wantNamed(t, "land", out, "protected_paths", ".flow/flowdeck.db", ".env", ".flow/worktrees")
	if p.git(p.dir, "rev-parse", "HEAD") != head || p.git(p.dir, "status", "--porcelain", "--untracked-files=no") != "" {
		t.Fatal("a refused land changed the checkout")
	}
	if _, err := os.Stat(filepath.Join(p.dir, "work.txt")); err == nil {
		t.Fatal("a refused land wrote the feature's files")
	}
	p.intact(wb, acked)
}

// A file of the person's that git does not track, where the session's work
// lands: land refuses with untracked_in_the_way naming it (not git's error,
// exit 3), changing nothing; moved aside, the land goes through.
func TestLandRefusesUntrackedFilesInTheWay(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"x","title":"X"}]}`)
	wx := p.claim("x", "w1")
	if err := os.MkdirAll(filepath.Join(wx, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.write(wx, "notes.txt", "the agent's notes\n")
	p.write(wx, "docs/guide.md", "guide\n")
	p.verify("x", "broad", "test", "-f", "notes.txt")
	p.must("flow", "review", "--final", "--decision", "approved")
	p.action(0, "flow", "run", "complete", "x", "--outcome", "completed")

	p.write(p.dir, "notes.txt", "the person's notes\n")
	p.write(p.dir, "docs", "a file where the session has a directory\n")
	head := p.git(p.dir, "rev-parse", "HEAD")
	out, errs, code := flowdeck(t, p.dir, "--json", "flow", "land")
	if code != ExitRejected {
		t.Fatalf("land: exit %d, want %d: %s %s", code, ExitRejected, out, errs)
	}
	wantNamed(t, "land", out, "untracked_in_the_way", "notes.txt", "docs")
	if got, _ := os.ReadFile(filepath.Join(p.dir, "notes.txt")); string(got) != "the person's notes\n" || p.git(p.dir, "rev-parse", "HEAD") != head {
		t.Fatalf("a refused land changed the checkout (notes.txt %q)", got)
	}
	if out, errs, code := flowdeck(t, p.dir, "flow", "verify"); code != 0 {
		t.Fatalf("flow verify: exit %d %s %s", code, out, errs)
	}

	os.Remove(filepath.Join(p.dir, "notes.txt"))
	os.Remove(filepath.Join(p.dir, "docs"))
	p.must("flow", "land")
	if got, _ := os.ReadFile(filepath.Join(p.dir, "notes.txt")); string(got) != "the agent's notes\n" {
		t.Fatalf("landed notes.txt %q", got)
	}
}

// A completion killed between moving the integration branch and storing
// itself (kill -9 at that very moment, through the binary's test-only
// FLOWDECK_TEST_CRASH_AFTER_MERGE) leaves a merge of work that never
// completed. The next ordinary command (another agent's claim) takes it
// back before its feature starts from the branch; the database holds every
// acknowledged event; the feature completes again as usual.
func TestCrashAfterMergeIsTakenBack(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`)
	base := p.git(p.dir, "rev-parse", "HEAD") // where the integration branch starts
	p.protectPerson()
	wa := p.claim("a", "w1")
	p.write(wa, "fa.txt", "a\n")
	commitA := p.verify("a", "targeted", "test", "-f", "fa.txt")
	acked := len(p.events())

	cmd := exec.Command(binary, "--dir", p.dir, "--json", "flow", "run", "complete", "a", "--outcome", "completed")
	cmd.Env = append(os.Environ(), "FLOWDECK_TEST_CRASH_AFTER_MERGE=1")
	out, errs, code := runProcess(t, cmd)
	if code == 0 || strings.Contains(out, `"ok": true`) {
		t.Fatalf("the completion was not killed: exit %d %s %s", code, out, errs)
	}
	if got := p.git(p.dir, "rev-parse", p.integ); got != commitA {
		t.Fatalf("killed before the merge: %s is at %s, want %s", p.integ, got, commitA)
	}

	claim := p.action(0, "flow", "run", "start", "b", "--agent", "w2")
	if claim.Git == nil || !strings.Contains(claim.Git.Warning, "taken back") {
		t.Fatalf("the claim does not say it took the merge back: %+v", claim.Git)
	}
	wb := claim.Git.Worktree
	if got := p.git(p.dir, "rev-parse", p.integ); got != base {
		t.Fatalf("after the next command %s is at %s, want it back at %s", p.integ, got, base)
	}
	if _, err := os.Stat(filepath.Join(wb, "fa.txt")); err == nil {
		t.Fatal("the next feature starts from work that never completed")
	}
	p.intact("", acked)
	var st struct {
		Session struct {
			Plan struct{ Features []struct{ ID, Status string } }
		}
	}
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "status")), &st); err != nil {
		t.Fatal(err)
	}
	if f := st.Session.Plan.Features[0]; f.ID != "a" || f.Status != "in_progress" {
		t.Fatalf("feature a after the crash: %+v", f)
	}

	res := p.action(0, "flow", "run", "complete", "a", "--outcome", "completed")
	if res.Git == nil || res.Git.Merge == nil || res.Git.Merge.Commit != commitA || p.git(p.dir, "rev-parse", p.integ) != commitA {
		t.Fatalf("completion after the crash: %+v", res.Git)
	}
	p.must("flow", "verify")
}
