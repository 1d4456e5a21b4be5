package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// The recovery path for a damaged database: export what can be read,
// import it into a new file, check the result.

func (e *env) exportCmd() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "export [FILE|-] [--force]",
		Short: "Write every session's event log as JSONL (to stdout by default)",
		Long: `Write every session's event log, one JSON object per line after a header
line, to FILE or stdout. Import rebuilds a database from it. Each session is
read on its own, so damage in one session's pages loses only the rest of that
session's log; what could not be read is reported and the exit code is 3.
Run output, flow runs and decisions are not exported.

FILE must not exist (file_exists, exit 3) unless --force, which replaces it
whole: the export is written beside it and renamed over it when complete.
A symlink, FIFO, device or directory at FILE is refused with or without
--force (not_regular_file, or path_escapes_project for a link in the project
that leads out of it): nothing is ever written through a link.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			target := "-"
			if len(args) == 1 {
				target = args[0]
			}
			if target == "-" {
				rep, err := p.Export(e.stdout)
				if err != nil {
					return e.fail(err)
				}
				return e.reportExport(e.stderr, rep, target) // stdout holds the export
			}
			// The export is for a damaged database: replacing that very
			// file (a slip of the argument, with --force) would lose what
			// it holds.
			if sameFile(target, p.DatabasePath()) {
				return usageErr("export %s: that is the database itself; write the export to another file", target)
			}
			out, err := contain.CreateNamed(p.Root(), target, force, 0o666)
			if err != nil {
				return e.fail(err)
			}
			rep, err := p.Export(out)
			if err != nil {
				out.Abort()
				return e.fail(err)
			}
			if err := out.Close(); err != nil {
				return e.fail(err)
			}
			return e.reportExport(e.stdout, rep, target)
		},
	}
	c.Flags().BoolVar(&force, "force", false, "replace an existing FILE (written beside it, then renamed over it)")
	return c
}

// openNamed opens for reading a file the person named (contain.OpenNamed)
// for the command what: a link out of the project or a FIFO, device or
// directory is a fault (exit 3) naming it; a file that cannot be opened is a
// usage error, as a missing argument is.
func (e *env) openNamed(what, name string) (*os.File, error) {
	root, err := e.projectDir()
	if err != nil {
		return nil, err
	}
	f, err := contain.OpenNamed(root, name)
	if _, ok := model.AsFault(err); ok {
		return nil, err
	} else if err != nil {
		return nil, usageErr("%s: %v", what, err)
	}
	return f, nil
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
				f, err := e.openNamed("import", args[0])
				if err != nil {
					return err
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
