package model

import (
	"errors"
	"fmt"
	"strings"
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
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
