package ops

import (
	"os"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/worktrees"
)

// The git side of the actions, for sessions whose features run in git
// worktrees (model.GitSetup): the model records, this file does the git
// work around the one stored action, and everything that moves a branch
// happens under .flow/git.lock so that two agents completing at once merge
// one after the other.

// GitReport is what the git side of an action did, beside its result.
type GitReport struct {
	// Worktree is the absolute path of the feature's worktree (claimed,
	// kept after a conflict); Branch its branch.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Merge is what merging the feature into the integration branch did.
	Merge *gitwork.MergeResult `json:"merge,omitempty"`
	// Removed lists the worktrees removed (completion, reset, archive).
	Removed []string `json:"removed,omitempty"`
	// Reverted lists the completed features whose merges a reset took back
	// out of the integration branch, newest first.
	Reverted []string `json:"reverted,omitempty"`
	// Kept lists the branches of removed worktrees that stay (archiving a
	// session keeps its features' work; activating it again resumes it).
	Kept []string `json:"kept_branches,omitempty"`
	// Warning says what git work failed after the action was stored (the
	// action stands; run --feature makes a missing worktree again).
	Warning string `json:"warning,omitempty"`
}

// warn adds msg to the report's warning: several things can fail in one
// action (a revert and a worktree's removal), and each is said. An empty
// msg (a settle that had nothing to say) adds nothing.
func (g *GitReport) warn(msg string) {
	if msg == "" {
		return
	}
	if g.Warning != "" {
		g.Warning += "; "
	}
	g.Warning += msg
}

// Faults are deliberate failures for tests of the real binary, set by the
// binary from its environment (never by a test in-process):
// CrashAfterMerge ($FLOWDECK_TEST_CRASH_AFTER_MERGE) kills the process
// right after a completion moved the integration branch, before the
// completion is stored, as a power cut or a kill -9 would.
type Faults struct {
	CrashAfterMerge bool
}

// afterMerge is the crash CrashAfterMerge asks for: SIGKILL where there is
// one (nothing deferred runs, no lock is released but by the kernel), else
// exit status 137 as a shell reports a SIGKILL.
func (f Faults) afterMerge() {
	if !f.CrashAfterMerge {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
	os.Exit(137)
}

// doGit stores a, doing the git work an action needs in a session that uses
// worktrees; other actions are stored as they are.
func doGit(st *db.Store, a model.Action, seen uint64, by model.Context, faults Faults) (*db.Outcome, *GitReport, error) {
	// What starts from the integration branch (a feature's start, the
	// trees a plan approval or the final review pins) starts from it as
	// the stored state says it is: a merge a crashed completion left on it
	// goes first.
	var settled string
	switch a.(type) {
	case model.PlanApprove, model.RunStart, model.ReviewFinal:
		if worktrees.MaybeGit(worktrees.ProjectRoot(st)) {
			var err error
			if settled, err = settleGit(st); err != nil {
				return nil, nil, err
			}
		}
	}
	a, err := pin(st, a) // ops/pin.go
	if err != nil {
		return nil, nil, err
	}
	switch act := a.(type) {
	case model.PlanApprove:
		a = withGitSetup(st, act)
	case model.RunStart:
		out, rep, err := startWithWorktree(st, act, seen, by)
		if settled != "" {
			if rep == nil {
				rep = &GitReport{}
			}
			rep.warn(settled)
		}
		return out, rep, err
	case model.RunComplete:
		if act.Outcome == model.OutcomeCompleted {
			return completeWithMerge(st, act, seen, by, faults)
		}
	case model.ResetFeature:
		return resetWithWorktrees(st, act, seen, by)
	case model.ResetSession, model.ActivateSession, model.PlanStart:
		return archiveWithWorktrees(st, a, seen, by)
	}
	out, err := st.DoBy(a, seen, by)
	return out, nil, err
}

// withGitSetup gives a plan approval the session's git setup when the
// project is a git repository and the plan wants worktrees.
func withGitSetup(st *db.Store, a model.PlanApprove) model.PlanApprove {
	root := worktrees.ProjectRoot(st)
	if a.Git != nil || !worktrees.MaybeGit(root) {
		return a
	}
	s, err := st.Active()
	if err != nil || s == nil || s.Plan == nil || s.Git != nil || !s.Plan.WantsWorktrees(gitwork.IsRepo(root)) {
		return a
	}
	repo, err := gitwork.Open(root)
	if err != nil {
		return a
	}
	branch, head, err := repo.CurrentBranch()
	if err != nil { // no commit yet: nothing to branch from
		return a
	}
	a.Git = &model.GitSetup{Integration: model.IntegrationBranch(s.ID), Base: branch, BaseCommit: head}
	return a
}

func startWithWorktree(st *db.Store, a model.RunStart, seen uint64, by model.Context) (*db.Outcome, *GitReport, error) {
	out, err := st.DoBy(a, seen, by)
	if out == nil || out.Session == nil || !out.Session.UsesWorktrees() {
		return out, nil, err
	}
	for _, e := range out.Events {
		if e.Type == model.EventFeatureStarted && e.FeatureGit != nil {
			rep := &GitReport{Branch: e.FeatureGit.Branch, Worktree: worktrees.Path(st, e.FeatureGit.Worktree)}
			if _, werr := worktrees.Ensure(st, e.Feature); werr != nil {
				rep.warn("the worktree of " + e.Feature + " was not made: " + werr.Error())
			}
			return out, rep, err
		}
	}
	return out, nil, err
}
