package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/runner"
	"github.com/flowdeck/flowdeck/termtext"
)

func (e *env) recallCmd() *cobra.Command {
	var run, feature string
	var limit int
	c := &cobra.Command{
		Use:   "recall [--run ID] [--feature ID] [--limit N] QUERY...",
		Short: "Fuzzy-search every line of output flowdeck has stored",
		Args:  minArgs(1, "a query"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.Recall(model.RecallQuery{Query: strings.Join(args, " "), RunID: run, Feature: feature, Limit: limit})
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				return e.writeJSON(res)
			}
			hits := res.Hits
			color := colorOn(e.rawOut)
			// highlight leaves no control in the text: only its own SGR
			// reaches this writer.
			out := termtext.NewWriter(e.rawOut, termtext.Options{KeepSGR: color})
			for _, h := range hits {
				fmt.Fprintf(out, "%s  %s:%d  %s\n", h.RunID, clip(model.ShellJoin(h.Argv), 30), h.Line, highlight(h.Text, h.Matched, color))
			}
			if len(hits) == 0 {
				// As oo: finding nothing is an answer, not a failure.
				fmt.Fprintln(e.stdout, ops.NoResults)
			}
			return nil
		},
	}
	c.Flags().StringVar(&run, "run", "", "search only this run")
	c.Flags().StringVar(&feature, "feature", "", "search only runs made for this feature")
	c.Flags().IntVar(&limit, "limit", 50, "how many hits")
	return c
}

// highlight makes a stored line safe for a terminal (no control characters
// at all) and marks the matched bytes in bold when color is on.
func highlight(text string, matched []int, color bool) string {
	marks := map[int]bool{}
	for _, m := range matched {
		marks[m] = true
	}
	var b strings.Builder
	for i, r := range text {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || termtext.IsC1(r) || termtext.IsBidi(r) {
			r = '·'
		}
		if color && marks[i] {
			b.WriteString("\x1b[1;33m")
			b.WriteRune(r)
			b.WriteString("\x1b[0m")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (e *env) runsCmd() *cobra.Command {
	var limit int
	var all bool
	c := &cobra.Command{
		Use:   "runs [--limit N] [--all]",
		Short: "List the runs flowdeck has recorded, newest first",
		Long: `List the runs flowdeck has recorded, newest first: outcome, exit code,
duration, feature, who ran it, the command and its summary. The flows' own
plumbing (their exec blocks: the commands that fetch status or build a
prompt) is left out unless --all.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			res, err := p.Runs(limit, all)
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				return e.writeJSON(res)
			}
			for _, r := range res.Runs {
				feature := r.Feature
				if feature == "" {
					feature = "-"
				}
				fmt.Fprintf(e.stdout, "%s  %-11s %4d  %8s  %-14s %-12s %s  %s\n", r.ID, r.Outcome, r.ExitCode,
					r.Duration.Round(time.Millisecond), clip(feature, 14), clip(sanitize(cmp.Or(r.Actor, "-")), 12),
					clip(model.CommandLine(r.Argv), 40), sanitize(r.Summary))
			}
			return nil
		},
	}
	c.Flags().IntVar(&limit, "limit", 50, "how many runs (0 = all)")
	c.Flags().BoolVar(&all, "all", false, "include the flows' plumbing runs")
	return c
}

// sanitize drops control characters from text meant for a terminal.
func sanitize(s string) string { return termtext.String(s) }

func (e *env) showCmd() *cobra.Command {
	var raw bool
	c := &cobra.Command{
		Use:   "show RUN [--raw]",
		Short: "Print a run's output (escape sequences removed unless --raw)",
		Args:  exactArgs(1, "a run id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			rec, err := p.RunRecord(args[0])
			if err != nil {
				return internalErr(err)
			}
			if rec == nil {
				return e.show(ops.Refused(&model.Error{Code: "unknown_run", Message: "no run " + args[0],
					Recovery: model.Recovery{Hint: "flowdeck runs lists the recorded runs.", NextCommand: "flowdeck runs"}}), nil)
			}
			if rec.Forgotten {
				return e.show(ops.Refused(&model.Error{Code: "run_forgotten", Message: "the output of run " + rec.ID + " was forgotten",
					Recovery: model.Recovery{Hint: "Only the record is kept; run the command again.", NextCommand: "flowdeck run -- " + model.ShellJoin(rec.Argv)}}), nil)
			}
			// The output streams through in bounded pieces; a soft memory
			// limit keeps the collector from letting the heap double on a
			// busy machine (as run does).
			debug.SetMemoryLimit(48 << 20)
			if err := e.streamOutput(p, rec, raw); err != nil {
				return err
			}
			if !e.json && (rec.Outcome == model.RunInterrupted || rec.Outcome == model.RunRunning) {
				// Said apart from the output, which may be piped on.
				fmt.Fprintf(e.stderr, "flowdeck: run %s is %s: %s\n", rec.ID, rec.Outcome, sanitize(cmp.Or(rec.Summary, "the output so far")))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&raw, "raw", false, "print the bytes exactly as the command wrote them")
	return c
}

// maxCarry bounds the part of a line held back to be cleaned whole; a
// longer line is cleaned in pieces.
const maxCarry = 1 << 20

// readPiece is how much output show reads at a time: every piece is copied a
// few times on its way out (escapes stripped, cleaned, JSON-quoted), so a
// small piece keeps the garbage, and the peak, small.
const readPiece = 1 << 20

// streamOutput prints a run's output in pieces cut at line ends, so that a
// huge output never sits in memory. With --json it writes the object
// {"ok", "run", "output"}, the output string streamed the same way.
func (e *env) streamOutput(p *project.Project, rec *model.RunRecord, raw bool) error {
	// JSON goes out raw with C1 and bidi characters escaped, as writeJSON's:
	// the human sanitiser would render an argv's U+009D as `\e]…`, no JSON.
	jout := jsonSafe{e.rawOut}
	if e.json {
		head, err := json.MarshalIndent(rec, "  ", "  ")
		if err != nil {
			return internalErr(err)
		}
		fmt.Fprintf(jout, "{\n  \"ok\": true,\n  \"run\": %s,\n  \"output\": \"", head)
	}
	emit := func(b []byte) error {
		text := sanitize(string(patterns.StripANSI(b)))
		if !e.json {
			_, err := io.WriteString(e.stdout, text)
			return err
		}
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		enc.Encode(text)
		_, err := jout.Write(bytes.TrimSuffix(q.Bytes()[1:], []byte("\"\n")))
		return err
	}
	var pending []byte
	for off := int64(0); ; {
		data, next, err := p.ReadOutput(rec.ID, off, readPiece)
		if err != nil {
			return internalErr(err)
		}
		if len(data) == 0 {
			break
		}
		off = next
		if raw && !e.json {
			e.rawOut.Write(data) // --raw is the escape hatch: bytes as stored
			continue
		}
		pending = append(pending, data...)
		cut := bytes.LastIndexByte(pending, '\n') + 1
		if cut == 0 && len(pending) > maxCarry {
			cut = runeStart(pending, maxCarry)
		}
		if err := emit(pending[:cut]); err != nil {
			return nil // the reader went away (a closed pipe)
		}
		pending = append(pending[:0], pending[cut:]...)
	}
	if len(pending) > 0 {
		emit(pending)
	}
	if e.json {
		io.WriteString(jout, "\"\n}\n")
	}
	return nil
}

// runeStart is the last index <= n that does not split a UTF-8 sequence.
func runeStart(b []byte, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return n
}

func (e *env) forgetCmd() *cobra.Command {
	var run, before string
	var all bool
	c := &cobra.Command{
		Use:   "forget (--run ID | --before DURATION | --all)",
		Short: "Delete stored output and its index (records and evidence stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			q := model.ForgetQuery{RunID: run, All: all}
			set := 0
			for _, on := range []bool{run != "", before != "", all} {
				if on {
					set++
				}
			}
			if set != 1 {
				return usageErr("forget takes exactly one of --run ID, --before DURATION, --all")
			}
			if before != "" {
				d, err := time.ParseDuration(before)
				if err != nil {
					return usageErr("--before %q: %v (e.g. 72h)", before, err)
				}
				q.Before = e.now().Add(-d)
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			n, err := p.Forget(q)
			if err != nil {
				return internalErr(err)
			}
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "forgotten": n})
			}
			fmt.Fprintf(e.stdout, "forgot the output of %d run(s)\n", n)
			return nil
		},
	}
	c.Flags().StringVar(&run, "run", "", "one run")
	c.Flags().StringVar(&before, "before", "", "runs that started longer ago than this (e.g. 72h)")
	c.Flags().BoolVar(&all, "all", false, "every run")
	return c
}

func (e *env) patternsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "patterns",
		Short: "List output patterns, or try one on a saved output",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var command string
	var exit int
	test := &cobra.Command{
		Use:   "test --command CMD [--exit N] FILE",
		Short: "Classify a saved output as if CMD had printed it",
		Args:  exactArgs(1, "an output file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if command == "" {
				return usageErr("--command is required, e.g. --command \"go test ./...\"")
			}
			p, err := e.project()
			if err != nil {
				return err
			}
			f, err := e.openNamed("patterns test", args[0])
			if err != nil {
				return err
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return usageErr("patterns test: read %s: %v", args[0], err)
			}
			argv := strings.Fields(command)
			c := p.Patterns().Classifier(argv, patterns.Options{})
			c.Write(data)
			res := c.Finish(exit, 0)
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "classification": ops.Classify(res)})
			}
			name := res.Pattern
			if name == "" {
				name = command
			}
			fmt.Fprintln(e.stdout, res.Headline(name))
			fmt.Fprintf(e.stdout, "class %s, category %s, pattern %q (%s)\n", res.Class, res.Category, res.Pattern, res.Source)
			if res.Detail != "" {
				fmt.Fprintln(e.stdout, sanitize(strings.TrimRight(res.Detail, "\n")))
			}
			return nil
		},
	}
	test.Flags().StringVar(&command, "command", "", "the command that printed the output")
	test.Flags().IntVar(&exit, "exit", 0, "its exit code")
	list := &cobra.Command{
		Use:   "list",
		Short: "List every pattern in match order, with where it came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			infos := p.Patterns().List()
			if e.json {
				return e.writeJSON(map[string]any{"ok": true, "patterns": infos})
			}
			for _, p := range infos {
				fmt.Fprintf(e.stdout, "%-16s %-10s %s\n", p.Name, p.Source, p.CommandMatch)
			}
			return nil
		},
	}
	c.AddCommand(list, test)
	return c
}

func (e *env) doctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Say what isolation this machine supports, and check the project's database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			caps := runner.Probe()
			dbRep, err := e.doctorDatabase()
			if err != nil {
				return err
			}
			if e.json {
				if err := e.writeJSON(map[string]any{"ok": dbRep == nil || dbRep.OK, "isolation": caps, "database": dbRep}); err != nil {
					return err
				}
			} else {
				printCapabilities(e.stdout, caps)
				e.printDoctorDatabase(dbRep)
			}
			if dbRep != nil && !dbRep.OK {
				return silent(ExitInternal)
			}
			return nil
		},
	}
}

func printCapabilities(w io.Writer, c runner.Capabilities) {
	fmt.Fprintf(w, "OS %s, cgroups %s\n", c.OS, c.Cgroup)
	fmt.Fprintf(w, "A run with limits gets: %s (enforced: %s)\n", c.Mechanism, strings.Join(c.Enforced, ", "))
	for _, ctl := range c.Controllers {
		mark := "✓"
		why := ctl.Dir
		if !ctl.Usable {
			mark, why = "✗", ctl.Reason
		}
		fmt.Fprintf(w, "  %s %-6s (%s) %s\n", mark, ctl.Name, ctl.Version, why)
	}
	if c.Network.Available {
		fmt.Fprintf(w, "  ✓ --no-network via %s\n", c.Network.Method)
	} else {
		fmt.Fprintf(w, "  ✗ --no-network: %s\n", c.Network.Reason)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}
