package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/internal/editor"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// codeEditCancelled is the --json error code of an edit that ended with
// nothing applied (README, error codes); the exit code is ExitUsage.
const codeEditCancelled = "edit_cancelled"

func (e *env) planEditCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "edit",
		Short: "Edit the plan in $VISUAL/$EDITOR and apply it when you save (JSON with comments)",
		Long: `Opens your editor on the active session's plan, or on a commented template
when it has none, and applies what you save exactly as 'flow plan apply'
does: the same checks, the same actor, the same --json result and exit codes.

The editor is $VISUAL, else $EDITOR, else vi. The value may hold arguments
("code --wait"): it is split into words as a shell would (quotes, $VARIABLES
and ~ expand; a command substitution is refused). The editor must not return
before you are done with the file.

A plan flowdeck refuses reopens in the editor with the refusal on top, as //
comments (the code, the message, the features at fault with their lines)
above your text; fix it and save again. Quit without saving, empty the file
or make the editor exit non-zero to cancel: nothing is applied and flowdeck
exits 2 (with --json: error code edit_cancelled); what you typed is kept in
a file the message names.

Plans are JSON with comments (JSONC): // and /* */ comments and trailing
commas are allowed, here and in 'flow plan apply'.

It needs a terminal on standard input; without one, write the plan to a
file and run 'flowdeck flow plan apply FILE'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return e.editPlan() },
	}
}

// editPlan is flow plan edit: edit, apply, and on a refusal edit again.
func (e *env) editPlan() error {
	tty, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(tty.Fd())) {
		return usageErr("flow plan edit opens your editor and needs a terminal on standard input; " +
			"without one, write the plan to a file and run: flowdeck flow plan apply FILE")
	}
	p, err := e.project()
	if err != nil {
		return err
	}
	s, err := p.Active()
	if err != nil {
		return e.fail(err)
	}
	// Refused whatever the plan holds (no session, a feature in progress):
	// say so before the person writes one.
	if refusal, ok := model.AsError(model.PlanEditable(s)); ok {
		return e.show(ops.Refused(refusal), nil)
	}
	f, err := editor.New(editor.PlanPattern, editor.PlanText(s))
	if err != nil {
		return e.fail(err)
	}
	for {
		cmd, err := f.Command()
		if err != nil {
			f.Remove()
			return usageErr("flow plan edit: %v", err)
		}
		// The editor draws on the terminal even when the result goes to a
		// file or a pipe (--json > result.json).
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, terminalOr(e.rawOut, tty), terminalOr(e.rawErr, tty)
		if err := cmd.Run(); err != nil {
			return e.editCancelled(f.Cancel(fmt.Sprintf("the editor %s failed (%v)", cmd.Args[0], err), nil))
		}
		save, err := f.ReadPlan()
		if err != nil {
			return e.fail(err)
		}
		if save.Cancelled != "" {
			return e.editCancelled(f.Cancel(save.Cancelled, save.Text))
		}
		if save.Problem == nil {
			res, err := p.Do(model.PlanApply{Plan: *save.Plan}, e.expectSeq, e.full)
			if err != nil {
				return e.fail(fmt.Errorf("%w (your plan is kept in %s)", err, f.Path))
			}
			if res.Error == nil {
				f.Remove()
				return e.showAction(res)
			}
			if !editor.Fixable(res.Error) {
				// The state refuses it, not the text: apply's refusal, and
				// the text is kept for later.
				fmt.Fprintf(e.stderr, "flowdeck: your plan is kept in %s\n", f.Path)
				return e.showAction(res)
			}
			save.Problem = res.Error
		}
		if err := f.Retry(save.Text, save.Problem); err != nil {
			return e.fail(err)
		}
	}
}

// editCancelled reports an edit that ended with nothing applied: exit 2,
// and under --json the one error object.
func (e *env) editCancelled(msg string) error {
	refusal := &model.Error{Code: codeEditCancelled, Message: "plan edit cancelled: " + msg,
		Recovery: model.Recovery{Hint: "Edit again and save a changed plan, or apply a file.", NextCommand: "flowdeck flow plan edit"}}
	if e.json {
		if err := e.writeJSON(ops.Refused(refusal)); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stderr, "flowdeck: %s\n", refusal.Message)
	}
	return silent(ExitUsage)
}

// terminalOr is w when it is a terminal, else tty.
func terminalOr(w io.Writer, tty *os.File) io.Writer {
	if isTerminal(w) {
		return w
	}
	return tty
}
