package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// The recovery path for a damaged database: export what can be read,
// import it into a new file, check the result.

func (e *env) exportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "export [FILE|-]",
		Short: "Write every session's event log as JSONL (to stdout by default)",
		Long: `Write every session's event log, one JSON object per line after a header
line, to FILE or stdout. Import rebuilds a database from it. Each session is
read on its own, so damage in one session's pages loses only the rest of that
session's log; what could not be read is reported and the exit code is 3.
Run output, flow runs and decisions are not exported.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			out, report := e.stdout, e.stdout
			target := "-"
			if len(args) == 1 {
				target = args[0]
			}
			if target == "-" {
				report = e.stderr // stdout holds the export
			} else {
				// The export is for a damaged database: truncating that very
				// file (a slip of the argument) would lose what it holds.
				if sameFile(target, p.DatabasePath()) {
					return usageErr("export %s: that is the database itself; write the export to another file", target)
				}
				f, err := os.Create(target)
				if err != nil {
					return internalErr(err)
				}
				defer f.Close()
				out = f
			}
			rep, err := p.Export(out)
			if err != nil {
				return e.fail(err)
			}
			if c, ok := out.(io.Closer); ok && target != "-" {
				if err := c.Close(); err != nil {
					return internalErr(fmt.Errorf("write %s: %w", target, err))
				}
			}
			return e.reportExport(report, rep, target)
		},
	}
}

// sameFile reports whether paths a and b both exist and are one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func (e *env) reportExport(w io.Writer, rep *model.ExportReport, target string) error {
	if e.json {
		writeJSONTo(w, map[string]any{"ok": len(rep.Problems) == 0, "report": rep, "file": target})
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintln(e.stderr, "✗ "+p)
		}
		fmt.Fprintf(w, "exported %d sessions, %d events to %s\n", rep.Sessions, rep.Events, target)
	}
	if len(rep.Problems) > 0 {
		return silent(ExitInternal)
	}
	return nil
}

func (e *env) importCmd() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "import FILE|- [--force]",
		Short: "Rebuild the project's database from an export, then verify it",
		Long: `Rebuild .flow/flowdeck.db by replaying an export (flowdeck export) through
the same code that executed its actions; the whole file is checked before
anything is written, and the new database is verified afterwards. An
existing database is refused unless --force, which renames it to
flowdeck.db.replaced-TIME (it is never deleted).`,
		Args: exactArgs(1, "an export file, or - for stdin"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			in := e.stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageErr("import: %v", err)
				}
				defer f.Close()
				in = f
			}
			rep, v, err := p.Import(in, force)
			var bad *project.BadExportError
			if errors.As(err, &bad) {
				return usageErr("import %s: %v", args[0], err)
			} else if err != nil {
				return e.fail(err)
			}
			ok := len(v.Problems) == 0
			if e.json {
				e.writeJSON(map[string]any{"ok": ok, "import": rep, "verify": v})
			} else {
				if rep.MovedAside != "" {
					fmt.Fprintf(e.stdout, "moved the old database to %s\n", rep.MovedAside)
				}
				fmt.Fprintf(e.stdout, "✓ imported %d sessions, %d events into %s\n", rep.Sessions, rep.Events, rep.Path)
				for _, p := range v.Problems {
					fmt.Fprintln(e.stderr, "✗ verify: "+p.String())
				}
				if ok {
					fmt.Fprintln(e.stdout, "✓ verified: replayed state matches the stored state")
				}
			}
			if !ok {
				return silent(ExitInternal)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "move an existing database aside (renamed, not deleted) and import anyway")
	return c
}

// doctorDatabase checks the project's database; nil when there is none.
func (e *env) doctorDatabase() (*model.DoctorReport, error) {
	p, err := e.project()
	if err != nil {
		return nil, err
	}
	rep, err := p.Doctor()
	if err != nil {
		return nil, e.fail(err)
	}
	return rep, nil
}

func (e *env) printDoctorDatabase(rep *model.DoctorReport) {
	if rep == nil {
		fmt.Fprintln(e.stdout, "Database: none in this project yet")
		return
	}
	if rep.OK {
		fmt.Fprintf(e.stdout, "Database %s: ✓ pages consistent; %d sessions, %d events replay to the stored state\n",
			rep.Path, rep.Verify.Sessions, rep.Verify.Events)
		return
	}
	fmt.Fprintf(e.stdout, "Database %s: ✗ damaged\n", rep.Path)
	if rep.Fault != nil {
		fmt.Fprintf(e.stdout, "  %s\n  hint: %s\n", rep.Fault.Message, rep.Fault.Hint)
	}
	for _, p := range rep.Integrity {
		fmt.Fprintf(e.stdout, "  page check: %s\n", p)
	}
	if rep.Verify != nil {
		for _, p := range rep.Verify.Problems {
			fmt.Fprintf(e.stdout, "  verify: %s\n", p.String())
		}
	}
	if rep.Fault == nil || rep.Fault.Code == "database_corrupt" {
		fmt.Fprintln(e.stdout, "  recover: flowdeck export FILE (what can be read), then flowdeck import --force FILE")
	}
}

func writeJSONTo(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
