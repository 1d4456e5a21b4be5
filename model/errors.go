package model

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error codes. Agents branch on these; they are part of the public contract.
const (
	CodeNoActiveSession         = "no_active_session"
	CodeSessionAlreadyActive    = "session_already_active"
	CodeUnknownSession          = "unknown_session"
	CodeInvalidSessionID        = "invalid_session_id"
	CodeSessionCompleted        = "session_completed"
	CodeInvalidArgument         = "invalid_argument"
	CodePlanEmpty               = "plan_empty"
	CodePlanInvalidID           = "plan_invalid_id"
	CodePlanDuplicateFeature    = "plan_duplicate_feature"
	CodePlanUnknownDependency   = "plan_unknown_dependency"
	CodePlanSelfDependency      = "plan_self_dependency"
	CodePlanDuplicateDependency = "plan_duplicate_dependency"
	CodePlanCycle               = "plan_cycle"
	CodePlanInvalid             = "plan_invalid"
	CodePlanTooLarge            = "plan_too_large"
	CodeTextTooLarge            = "text_too_large"
	CodeNoPlan                  = "no_plan"
	CodePlanNotEditable         = "plan_not_editable"
	CodeSelectionMissingDep     = "plan_selection_missing_dependency"
	CodePlanAlreadyApproved     = "plan_already_approved"
	CodePlanNotApproved         = "plan_not_approved"
	CodeFeatureAlreadyActive    = "feature_already_active"
	CodeMaxParallelReached      = "max_parallel_reached"
	CodeFeatureNotRunnable      = "feature_not_runnable"
	CodeFeatureNotActive        = "feature_not_active"
	CodeUnknownFeature          = "unknown_feature"
	CodeNoRunnableFeature       = "no_runnable_feature"
	CodeMissingValidation       = "missing_validation_evidence"
	CodeFailingValidation       = "failing_validation"
	CodeMissingFeatureReview    = "missing_feature_reviewer_decision"
	CodeFailingFeatureReview    = "failing_feature_review"
	CodeMissingBroadValidation  = "missing_broad_validation"
	CodeMissingFinalReview      = "missing_final_reviewer_decision"
	CodeFailingFinalReview      = "failing_final_review"
	CodeMergeConflict           = "merge_conflict"
	CodeUnverifiedCommit        = "unverified_commit"
	CodeFeatureNotInterrupted   = "feature_not_interrupted"
	CodeSchedulerRunning        = "scheduler_running"
	CodeResetConflict           = "reset_conflict"
	CodeProtectedPaths          = "protected_paths"
)

// Error is a rejected action: what rule refused it and how to recover.
// Empty fields are left out of the JSON.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field names the argument at fault, for invalid_argument.
	Field    string   `json:"field,omitempty"`
	Recovery Recovery `json:"recovery"`
}

// Recovery tells a person or an agent what is missing and what to do next.
// NextAction, when present, is NextCommand as an argv.
type Recovery struct {
	Stage        string      `json:"stage,omitempty"`
	Prerequisite string      `json:"prerequisite,omitempty"`
	Hint         string      `json:"hint,omitempty"`
	NextCommand  string      `json:"next_command,omitempty"`
	NextAction   *NextAction `json:"next_action,omitempty"`
}

// NextAction is a command that can be executed right now to make progress.
type NextAction struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// AsError returns the *Error inside err, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func refuse(code, stage, prerequisite, hint, next string, msg string, args ...any) *Error {
	return &Error{
		Code:    code,
		Message: fmt.Sprintf(msg, args...),
		Recovery: Recovery{
			Stage:        stage,
			Prerequisite: prerequisite,
			Hint:         hint,
			NextCommand:  next,
		},
	}
}

// withAction attaches an executable next action built from a flowdeck argv.
func (e *Error) withAction(args ...string) *Error {
	e.Recovery.NextAction = &NextAction{Command: "flowdeck", Args: args}
	e.Recovery.NextCommand = "flowdeck " + ShellJoin(args)
	return e
}

// ShellJoin quotes arguments that a POSIX shell would split or expand.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = ShellQuote(a)
	}
	return strings.Join(out, " ")
}

// plainWords splits a command into words when no word needs quoting, so
// running the words is exactly what a shell would run: no quotes, globs,
// variables, redirections or separators, only the characters ShellQuote
// leaves bare.
func plainWords(cmd string) ([]string, bool) {
	words := strings.Fields(cmd)
	if len(words) == 0 || strings.Contains(words[0], "=") { // NAME=value is an assignment to a shell
		return nil, false
	}
	for _, w := range words {
		if ShellQuote(w) != w {
			return nil, false
		}
	}
	return words, true
}

// ShellQuote returns s quoted for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	if needsANSIC(s) {
		return ansiCQuote(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// needsANSIC reports whether s holds a character a terminal would act on
// rather than show (controls, C1, bidi) or that is not UTF-8.
func needsANSIC(s string) bool {
	for i, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || isBidi(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return true
		}
	}
	return false
}

func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// ansiCQuote quotes s as $'…' (bash, zsh, ksh, POSIX.1-2024 sh) with every
// control, C1, bidi and invalid byte written as an escape: the command
// shows as it is and still pastes back into a shell as the same bytes.
func ansiCQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0 || isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}
