// Package cli is flowdeck's command line: it parses arguments, acts through
// a *project.Project, and prints results for people (short text) and
// agents (--json).
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/internal/lean"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/termtext"
)

// colorOn reports whether flowdeck colours what it writes to w: a terminal,
// and NO_COLOR unset.
func colorOn(w io.Writer) bool { return isTerminal(w) && os.Getenv("NO_COLOR") == "" }

// Exit codes, documented in the README.
const (
	ExitOK       = 0
	ExitRejected = 1
	ExitUsage    = 2
	ExitInternal = 3
)

// env is what every command shares: I/O streams and global flags.
type env struct {
	stdin io.Reader
	// stdout and stderr sanitise what is printed for people: no escape
	// sequence, control or bidi character that did not come from flowdeck
	// reaches the terminal (termtext). rawOut and rawErr are the streams
	// themselves, for JSON, the MCP protocol, the cockpit and show --raw.
	stdout, stderr io.Writer
	rawOut, rawErr io.Writer
	dir            string
	actor          string
	json           bool
	full           bool // flow actions and status: the whole session in --json
	now            func() time.Time
	cockpitFn      Cockpit
	proj           *project.Project // opened by project()
	// expectSeq is --expect-seq of the flow actions: the session sequence
	// the caller decided on (0: no guard).
	expectSeq uint64
	// startDir is where the project search starts when there is no --dir:
	// an agent hook's cwd, else the working directory.
	startDir string
	// hook is the agent whose hook runs this command (--hook): its
	// failures must never block the agent.
	hook string
	// self is who this process is, as flowdeck told the agents it
	// launched ($FLOWDECK_AGENT, $FLOWDECK_FEATURE), read once here.
	self agentSelf
}

// agentSelf is the identity flowdeck gives every agent process it
// launches; empty for the person and for agents the person started.
type agentSelf struct {
	Agent, Feature string
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{ExitUsage, fmt.Errorf(format, args...)}
}

func internalErr(err error) error { return &exitError{ExitInternal, err} }

// silent is an exit code whose message was already printed.
type silent int

func (s silent) Error() string { return fmt.Sprintf("exit %d", int(s)) }

// Run executes flowdeck with args (without the program name) and returns the
// process exit code. cockpit opens the cockpit in process; nil starts the
// flowdeck-cockpit binary for it.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, cockpit Cockpit) int {
	// flowdeck's human output has no styling of its own (recall's
	// highlight and run's live output write through writers of their own),
	// so every sequence on these streams came from foreign text: it goes,
	// and a clipboard write, title or link shows as what it was.
	out := termtext.NewWriter(stdout, termtext.Options{Visible: true})
	errw := termtext.NewWriter(stderr, termtext.Options{Visible: true})
	defer out.Flush()
	defer errw.Flush()
	e := &env{stdin: stdin, stdout: out, stderr: errw, rawOut: stdout, rawErr: stderr, now: time.Now, cockpitFn: cockpit,
		self: agentSelf{Agent: os.Getenv("FLOWDECK_AGENT"), Feature: os.Getenv("FLOWDECK_FEATURE")}}
	root := e.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.Execute()
	stderr = errw
	if err == nil {
		return ExitOK
	}
	var s silent
	if errors.As(err, &s) {
		return int(s)
	}
	var x *exitError
	code := ExitUsage // cobra's own errors are about flags and arguments
	if errors.As(err, &x) {
		code = x.code
	}
	fault, isFault := model.AsFault(err)
	if isFault {
		code = ExitInternal // the project's files refused: never a usage error
	}
	if e.json || lean.JSONRequested(args) {
		// --json promises one object on stdout, whatever went wrong.
		e.writeJSON(errorObject(code, err))
	}
	fmt.Fprintf(stderr, "flowdeck: %v\n", err)
	if isFault && fault.Hint != "" {
		fmt.Fprintf(stderr, "  hint: %s\n", fault.Hint)
	}
	if code == ExitUsage {
		fmt.Fprintln(stderr, "Run 'flowdeck help' for usage.")
	}
	if code == ExitUsage && (e.hook != "" || hookRequested(args)) {
		// Claude Code takes exit 2 from a hook as "block": a prompt
		// would be erased, a turn could not end.
		return ExitRejected
	}
	return code
}

// hookRequested reports whether --hook is among args.
func hookRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--hook" || strings.HasPrefix(a, "--hook=") {
			return true
		}
	}
	return false
}

// errorObject is the one JSON object of a usage or internal error, in the
// shape of every refusal.
func errorObject(code int, err error) any {
	if code != ExitUsage {
		return ops.Failed(err) // names a fault's code and path
	}
	e := &model.Error{Code: model.CodeInvalidArgument, Message: err.Error(),
		Recovery: model.Recovery{Hint: "See 'flowdeck help' for the commands, their arguments and flags.", NextCommand: "flowdeck help"}}
	return ops.Refused(e)
}

func (e *env) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "flowdeck",
		Short: "A terminal cockpit for supervising AI coding agents",
		Long: `flowdeck keeps a planning session, its features and their evidence in
.flow/flowdeck.db at the repository root, and lets people and agents drive it.

Plain flowdeck, with no command, opens the cockpit (a terminal UI) on this
repository; flowdeck demo opens it on a throwaway project with an agent at
work. New here: flowdeck init, then flowdeck flow plan start GOAL.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.cockpit()
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&e.dir, "dir", "", "project directory (default: nearest directory with .git upward)")
	pf.StringVar(&e.actor, "actor", "", "who acts, recorded on every event (default $FLOWDECK_ACTOR or human)")
	pf.BoolVar(&e.json, "json", false, "print one JSON object (for agents)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErr("%v", err)
	})
	root.AddCommand(e.flowCommand(), e.diagramCommand(), e.demoCommand(), e.diffCommand(),
		e.runCmd(), e.recallCmd(), e.runsCmd(), e.showCmd(), e.forgetCmd(), e.patternsCmd(), e.doctorCmd(),
		e.exportCmd(), e.importCmd(), e.configCmd(), e.fleetCmd())
	root.AddCommand(e.agentCommands()...)
	root.AddCommand(e.flowsCommands()...)
	return root
}

// project opens the project for this command (once): --dir, else the
// nearest directory upward with .git or .flow from the hook's cwd or the
// working directory. Nothing is created until a command writes.
func (e *env) project() (*project.Project, error) {
	if e.proj != nil {
		return e.proj, nil
	}
	p, err := e.openProject(e.actorName(), e.stderr)
	if err != nil {
		return nil, err
	}
	e.proj = p
	return p, nil
}

// openProject opens the project acting as actor ("": the config's actor,
// else human); the config's and the patterns' problems go to warn.
func (e *env) openProject(actor string, warn io.Writer) (*project.Project, error) {
	if actor != "" {
		// --actor or $FLOWDECK_ACTOR names who acts on every event and run
		// record, shown on one line: refused before it is stored anywhere.
		field := "--actor"
		if e.actor == "" {
			field = "$FLOWDECK_ACTOR"
		}
		if err := model.CheckAgentName(field, actor); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	dir, asRoot := e.startDir, false
	if e.dir != "" {
		dir, asRoot = e.dir, true
	}
	// Test-only: the worktree crash test kills a completion between its
	// merge and its record (ops.Faults).
	faults := ops.Faults{CrashAfterMerge: os.Getenv("FLOWDECK_TEST_CRASH_AFTER_MERGE") != ""}
	p, err := project.Open(dir, project.Options{Actor: actor, Warn: warn, Now: e.now, AsRoot: asRoot, OneShot: true, Faults: faults,
		Agent: e.self.Agent})
	var notDir *project.NotDirError
	if errors.As(err, &notDir) {
		return nil, usageErr("%v", err)
	} else if err != nil {
		return nil, internalErr(err)
	}
	return p, nil
}

// projectDir is the project's root.
func (e *env) projectDir() (string, error) {
	p, err := e.project()
	if err != nil {
		return "", err
	}
	return p.Root(), nil
}

func (e *env) actorName() string {
	if e.actor != "" {
		return e.actor
	}
	if a := os.Getenv("FLOWDECK_ACTOR"); a != "" {
		return a
	}
	return "human"
}

// do runs one action against the project and prints its result.
func (e *env) do(a model.Action) error {
	p, err := e.project()
	if err != nil {
		return err
	}
	res, err := p.Do(a, e.expectSeq, e.full)
	if err != nil {
		return e.fail(err)
	}
	return e.showAction(res)
}
