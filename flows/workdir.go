package flows

import (
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/worktrees"
)

// A run of the built-in run flow started by the crew scheduler carries two
// variables that name where and as whom its agent works:
//
//	agent_name the agent's name (worker-2): the claim's owner, the actor of
//	          its runs, $FLOWDECK_AGENT
//	worktree  the directory its agent works in (the feature's git worktree
//	          once there is one), $FLOWDECK_WORKTREE
//
// They are the one place to change the cwd and name of an agent step.
const (
	VarAgent    = "agent_name"
	VarWorktree = "worktree"
	VarFeature  = "feature"
)

// RunString is a string variable of run (VarAgent, VarFeature, …), "" when
// unset or not a string: how the engine, the crew and the cockpit read them.
func RunString(run *model.FlowRun, name string) string {
	if run == nil {
		return ""
	}
	s, _ := run.Vars[name].(string)
	return strings.TrimSpace(s)
}

// agentDir is the working directory of run's agent steps: its worktree
// variable when that is a directory beneath the project (a flow or agent
// must not move an agent outside it), else the project root. The path is
// resolved beneath the project, so a symlink planted on the way (an agent
// in a sibling worktree can plant one) does not lead out of it; a
// feature's worktree is entered at the project's own subdirectory, where
// its verification runs too (worktrees.ProjectIn).
func (e *Engine) agentDir(run *model.FlowRun) string {
	wt := RunString(run, VarWorktree)
	if wt == "" {
		return e.Root
	}
	rel := wt
	if filepath.IsAbs(wt) {
		var err error
		if rel, err = filepath.Rel(e.Root, wt); err != nil {
			return e.Root
		}
	}
	if rel = filepath.Clean(rel); !filepath.IsLocal(rel) {
		return e.Root
	}
	r, err := contain.Open(e.Root)
	if err != nil {
		return e.Root
	}
	defer r.Close()
	if rel, err = contain.ResolveLinks(r, rel); err != nil {
		return e.Root
	}
	if fi, err := r.Stat(rel); err != nil || !fi.IsDir() {
		return e.Root
	}
	dir := filepath.Join(e.Root, rel)
	if e.Store != nil && filepath.Dir(rel) == filepath.FromSlash(model.WorktreesDir) {
		return worktrees.ProjectIn(e.Store, dir)
	}
	return dir
}

// agentName is who answers run's agent step for role: the run's agent
// variable for the flow's own role (the worker a scheduler slot named),
// else the role.
func agentName(run *model.FlowRun, role, flowRole string) string {
	if n := RunString(run, VarAgent); n != "" && role == flowRole && model.ValidAgentName(n) {
		return n
	}
	return role
}
