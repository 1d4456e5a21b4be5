package ui

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/tmuxtest"
)

// agentRow is one row of the Agents pane: "⟳ worker-1 audit-log  working 0s".
var agentRow = regexp.MustCompile(`(worker-[1-3]) [a-z][a-z-]* +(working|idle|waiting|failed)`)

// TestTmuxCrewDemoEndToEnd is issue 12's demo as a person meets it: the
// real `flowdeck demo --agents 3` in a 120×40 tmux, three scripted agents
// in git worktrees of a throwaway repository. The person answers the merge
// conflict the demo plan always produces, sees the three agents at once in
// the Agents pane, and approves the final review with `a`; the session
// ends completed, every feature merged into the integration branch, and
// the event log replays.
func TestTmuxCrewDemoEndToEnd(t *testing.T) {
	needTmux(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH (.ci/run installs it): the crew demo works in git worktrees")
	}
	dir := t.TempDir()
	project := filepath.Join(dir, "crew")
	bin := filepath.Join(binaries(t), "flowdeck")
	cmd := "env XDG_CONFIG_HOME=" + dir + " FLOWDECK_ACTOR=e2e TERM=xterm-256color " + bin + " --dir " + project +
		" demo --agents 3; echo flowdeck exited $?; sleep 60"
	tm := tmuxtest.New(t, 120, 40, cmd)

	// config-schema and token-store both append to one file: the second
	// to complete conflicts, and the person has the agent rebase.
	tm.WaitFor("step merge-conflict")
	time.Sleep(500 * time.Millisecond) // the prompt's grace period
	tm.WaitGone("just appeared")       // a busy machine draws it late
	tm.Keys("1")
	tm.WaitFor("decision d1: rebase")

	tm.Keys("8")
	scr := tm.WaitFor("8 Agents")
	// One row per agent: its name, its feature and its state — not a
	// name that other panes (runs, graph) show too.
	rows := agentRow.FindAllStringSubmatch(scr, -1)
	shown := map[string]bool{}
	for _, r := range rows {
		shown[r[1]] = true
	}
	if len(shown) != 3 {
		t.Errorf("the Agents pane shows agents %v, want worker-1, worker-2 and worker-3:\n%s", shown, scr)
	}

	tm.WaitFor("step final-confirm")
	time.Sleep(500 * time.Millisecond)
	tm.Keys("a")
	// Its work is on the integration branch, not yet on the person's.
	tm.WaitFor("[completed, not landed]")
	tm.Keys("q")
	tm.WaitFor("flowdeck exited 0")

	out, err := exec.Command(bin, "--dir", project, "--json", "flow", "status", "--full").Output()
	if err != nil {
		t.Fatalf("flow status: %v", err)
	}
	var st struct {
		Session struct {
			Status string `json:"status"`
			Git    struct {
				Integration string `json:"integration"`
			} `json:"git"`
			Execution struct {
				FinalReviews []struct {
					Actor    string `json:"actor"`
					Decision string `json:"decision"`
				} `json:"final_reviews"`
			} `json:"execution"`
			Plan struct {
				Features []struct {
					ID     string `json:"id"`
					Status string `json:"status"`
					Agent  string `json:"agent"`
					Git    struct {
						MergeCommit string `json:"merge_commit"`
					} `json:"git"`
				} `json:"features"`
			} `json:"plan"`
		} `json:"session"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("flow status: %v\n%s", err, out)
	}
	s := st.Session
	if s.Status != "completed" || s.Git.Integration == "" {
		t.Fatalf("session %s, integration branch %q", s.Status, s.Git.Integration)
	}
	if n := len(s.Execution.FinalReviews); n == 0 || s.Execution.FinalReviews[n-1].Decision != "approved" || s.Execution.FinalReviews[n-1].Actor != "e2e" {
		t.Errorf("final review not approved by the person: %+v", s.Execution.FinalReviews)
	}
	agents := map[string]bool{}
	for _, f := range s.Plan.Features {
		agents[f.Agent] = true
		if f.Status != "completed" || f.Git.MergeCommit == "" {
			t.Errorf("feature %s: %s, merge commit %q", f.ID, f.Status, f.Git.MergeCommit)
			continue
		}
		// What merged is on the integration branch.
		if err := exec.Command("git", "-C", project, "merge-base", "--is-ancestor", f.Git.MergeCommit, s.Git.Integration).Run(); err != nil {
			t.Errorf("feature %s: merge commit %s is not on %s", f.ID, f.Git.MergeCommit, s.Git.Integration)
		}
	}
	if len(s.Plan.Features) != 12 || len(agents) != 3 {
		t.Errorf("%d features by agents %v, want 12 by 3 agents", len(s.Plan.Features), agents)
	}
	if out, err := exec.Command(bin, "--dir", project, "flow", "verify").CombinedOutput(); err != nil {
		t.Errorf("flow verify: %v\n%s", err, out)
	}
	// No worktree is left behind once every feature merged.
	if out, _ := exec.Command("git", "-C", project, "worktree", "list").Output(); strings.Count(string(out), "\n") != 1 {
		t.Errorf("worktrees left:\n%s", out)
	}
}
