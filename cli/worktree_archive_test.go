package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Archiving a session removes the worktrees of its unfinished features and
// keeps their branches, with what the agents left uncommitted committed on
// them: another session can claim features of the same ids, and activating
// the archived one again resumes its work where it stood.
func TestArchiveRemovesWorktreesKeepsBranches(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`)
	oldID := strings.TrimPrefix(p.integ, "flowdeck/")
	wa, wb := p.claim("a", "w1"), p.claim("b", "w2")
	p.write(wa, "half.txt", "half done\n") // uncommitted

	res := p.action(0, "flow", "reset", "session")
	g := res.Git
	if g == nil || g.Warning != "" || !slices.Contains(g.Removed, wa) || !slices.Contains(g.Removed, wb) ||
		!slices.Equal(g.Kept, []string{p.integ + ".a", p.integ + ".b"}) {
		t.Fatalf("reset session git report %+v", g)
	}
	for _, wt := range []string{wa, wb} {
		if _, err := os.Stat(wt); !os.IsNotExist(err) {
			t.Fatalf("worktree %s still there (%v)", wt, err)
		}
	}
	if got := p.git(p.dir, "show", p.integ+".a:half.txt"); got != "half done" {
		t.Fatalf("a's uncommitted work on its kept branch: %q", got)
	}
	if list := p.git(p.dir, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("worktrees left:\n%s", list)
	}
	out, _, _ := flowdeck(t, p.dir, "flow", "reset", "session") // nothing active now: nothing to remove
	if strings.Contains(out, "removed worktree") {
		t.Fatalf("second reset: %s", out)
	}

	// A new session claims a feature of the same id.
	p.must("flow", "plan", "start", "second")
	p.must("flow", "plan", "apply", filepath.Join(p.dir, "plan.json"))
	p.must("flow", "plan", "approve")
	var st struct{ Session struct{ ID string } }
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "status")), &st); err != nil {
		t.Fatal(err)
	}
	oldInteg := p.integ
	p.integ = "flowdeck/" + st.Session.ID
	p.claim("a", "w3")

	// Back to the first session: the second's worktree goes (activation
	// archives it), and a's run remakes a's worktree from its kept branch.
	res = p.action(0, "flow", "session", oldID)
	if res.Git == nil || !slices.Equal(res.Git.Removed, []string{wa}) || !slices.Equal(res.Git.Kept, []string{p.integ + ".a"}) {
		t.Fatalf("activation git report %+v", res.Git)
	}
	p.integ = oldInteg
	runOut := p.must("--json", "run", "--feature", "a", "--", "test", "-f", "half.txt")
	if !strings.Contains(runOut, `"ok": true`) {
		t.Fatalf("a's run after activation: %s", runOut)
	}
	if br := p.git(wa, "symbolic-ref", "--short", "HEAD"); br != p.integ+".a" {
		t.Fatalf("a's worktree is on %q", br)
	}
	// A new goal replaces the session: that archives it too.
	res = p.action(0, "flow", "plan", "start", "third")
	if res.Git == nil || !slices.Equal(res.Git.Removed, []string{wa}) {
		t.Fatalf("replacement git report %+v", res.Git)
	}
	p.must("flow", "verify")
}
