package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// landCommand is flow land: the integration branch of a session whose
// features ran in worktrees, merged into the branch the person has checked
// out. Only ever on request.
func (e *env) landCommand() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "land",
		Short: "Merge the session's integration branch (flowdeck/SESSION) into the checked-out branch",
		Long: `Merge the active session's integration branch into the branch checked out
in the project: a fast-forward when possible, else a merge commit. Nothing
merges it automatically; this is the explicit step, and the next one of a
completed session until it is taken (the cockpit's L does it too). The
landing is recorded: status then says "completed, landed into BRANCH".

Refused (exit 1) unless the session is completed (--force lands what is
merged so far), when tracked files have uncommitted changes, when HEAD is
detached, and on a conflict — which changes nothing and is left to you.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.LandSeen(force, e.expectSeq) // --expect-seq, as every flow action
			if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() {
				switch {
				case !res.OK:
				case res.UpToDate:
					fmt.Fprintf(e.stdout, "· %s\n", res.Done())
				default:
					fmt.Fprintf(e.stdout, "✓ %s\n", res.Done())
				}
				if res.Warning != "" {
					fmt.Fprintf(e.stdout, "! %s\n", res.Warning)
				}
				if res.OK && res.NextCommand != "" {
					fmt.Fprintf(e.stdout, "next: %s\n", res.NextCommand)
				}
			})
		},
	}
	c.Flags().BoolVar(&force, "force", false, "land even though the session is not completed")
	return c
}

// printGit says what an action did in git: the worktree to work in, the
// merge, what was removed, what failed.
func printGit(w io.Writer, g *ops.GitReport) {
	if g == nil {
		return
	}
	switch m := g.Merge; {
	case m != nil && len(m.Conflicts) > 0:
		fmt.Fprintf(w, "· worktree kept: %s (branch %s)\n", g.Worktree, g.Branch)
	case m != nil && m.FastForward:
		fmt.Fprintf(w, "· merged %s (fast-forward to %s)\n", g.Branch, model.ShortCommit(m.Commit))
	case m != nil:
		fmt.Fprintf(w, "· merged %s (%s)\n", g.Branch, model.ShortCommit(m.Commit))
	case g.Worktree != "":
		fmt.Fprintf(w, "· worktree: %s (branch %s)\n", g.Worktree, g.Branch)
	}
	if len(g.Reverted) > 0 {
		fmt.Fprintf(w, "· took %s back out of the integration branch\n", strings.Join(g.Reverted, ", "))
	}
	for _, r := range g.Removed {
		fmt.Fprintf(w, "· removed worktree %s\n", r)
	}
	if len(g.Kept) > 0 {
		fmt.Fprintf(w, "· kept branches %s (with their work; activating the session again resumes it)\n", strings.Join(g.Kept, ", "))
	}
	if g.Warning != "" {
		fmt.Fprintf(w, "! %s\n", g.Warning)
	}
}
