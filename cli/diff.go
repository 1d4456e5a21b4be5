package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// diffCommand is flowdeck diff: the change a feature (or the session)
// made, as git prints it, for people, reviewer agents and scripts.
func (e *env) diffCommand() *cobra.Command {
	var session, stat bool
	var maxBytes int
	c := &cobra.Command{
		Use:   "diff [FEATURE]",
		Short: "The change of a feature (default: the active one) or of the whole session, as a unified diff",
		Long: `Print the change a feature made: from the tree its code started at (its
base) to the tree its latest validation ran against, or to the code as it is
now when it has no evidence yet. --session prints the session's whole change:
from its base to the code the last feature's broad validation ran against
(what the final review decides on), or before there is one, to the
integration branch (features in worktrees) or the project's checkout.

The diff is git's (renames found, no external drivers or textconv). On a
terminal it is coloured and every line is sanitised; otherwise it is written
byte for byte, so that git apply takes it. --stat lists the files with their
added and removed lines. --max-bytes keeps whole files while they fit and
lists the others.

Exit codes: 0 printed, 1 refused (no session, no git, no base), 3 internal.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			r := ops.DiffRequest{Session: session, MaxBytes: maxBytes}
			if len(args) == 1 {
				if session {
					return usageErr("diff: give a feature or --session, not both")
				}
				r.Feature = args[0]
			}
			res, err := p.Diff(r)
			if err != nil {
				return e.fail(err)
			}
			return e.show(res, func() {
				if !res.OK {
					return
				}
				if stat {
					printStat(e.stdout, res)
					return
				}
				if isTerminal(e.rawOut) {
					writeDiffTTY(e.rawOut, res.Patch, colorOn(e.rawOut))
				} else {
					io.WriteString(e.rawOut, res.Patch)
				}
				if len(res.Omitted) > 0 {
					fmt.Fprintf(e.stderr, "flowdeck: %d files left out by --max-bytes:\n", len(res.Omitted))
					printFiles(e.stderr, res.Omitted)
				}
				if res.Stale {
					fmt.Fprintf(e.stderr, "flowdeck: the code changed since this evidence (now at tree %s)\n", res.Current)
				}
				if len(res.Protected) > 0 {
					fmt.Fprintf(e.stderr, "flowdeck: warning: not the project's code (completion and land refuse it): %s\n",
						termtext.Line(model.NamedPaths(res.Protected)))
				}
			})
		},
	}
	c.Flags().BoolVar(&session, "session", false, "the session's whole change instead of one feature's")
	c.Flags().BoolVar(&stat, "stat", false, "only the files with their added and removed lines")
	c.Flags().IntVar(&maxBytes, "max-bytes", 0, "keep whole files of the diff while they fit in this many bytes (0: all)")
	return c
}

func printStat(w io.Writer, res *ops.DiffResult) {
	printFiles(w, res.Files)
	fmt.Fprintf(w, " %d files changed, +%d -%d\n", len(res.Files), res.Added, res.Removed)
	if res.Stale {
		fmt.Fprintf(w, " the code changed since this evidence (now at tree %s)\n", res.Current)
	}
}

func printFiles(w io.Writer, files []gitwork.FileStat) {
	for _, f := range files {
		name := f.Path
		if f.OldPath != "" {
			name = f.OldPath + " → " + f.Path
		}
		if f.Binary {
			fmt.Fprintf(w, " %s | binary\n", termtext.Line(name))
			continue
		}
		fmt.Fprintf(w, " %s | +%d -%d\n", termtext.Line(name), f.Added, f.Removed)
	}
}

// writeDiffTTY writes patch for a terminal: every line sanitised (an
// agent's code may hold escape sequences), coloured by its kind.
func writeDiffTTY(w io.Writer, patch string, color bool) {
	var b strings.Builder
	for line := range strings.Lines(patch) {
		line = termtext.Line(strings.TrimSuffix(line, "\n"))
		sgr := ""
		if color {
			switch {
			case strings.HasPrefix(line, "diff --git "), strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
				sgr = "\x1b[1m"
			case strings.HasPrefix(line, "@@"):
				sgr = "\x1b[36m"
			case strings.HasPrefix(line, "+"):
				sgr = "\x1b[32m"
			case strings.HasPrefix(line, "-"):
				sgr = "\x1b[31m"
			}
		}
		if sgr != "" {
			b.WriteString(sgr + line + "\x1b[m\n")
		} else {
			b.WriteString(line + "\n")
		}
	}
	io.WriteString(w, b.String())
}
