// Package ops executes flowdeck's operations on a store and builds their
// result objects: the JSON that `flowdeck --json` prints and the MCP tools
// return. Package project calls it for every front-end (the command line,
// the MCP server, the cockpit), so an agent gets the same object whichever
// way it asks. RunResult restates capture.Result field by field on purpose:
// it is the snake_case JSON view of a run, with a bounded excerpt.
package ops

import (
	"errors"
	"fmt"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// Result is the object an operation answers with.
type Result interface {
	// Refusal is the rule that refused the operation, or nil.
	Refusal() *model.Error
}

// ActionResult is the result of every /flow-* action, accepted or refused:
// the events it stored, the feature it touched and a summary of the session
// (the whole session with Full). A refusal's error comes right after ok.
type ActionResult struct {
	OK    bool         `json:"ok"`
	Error *model.Error `json:"error,omitempty"`
	// Message says why an accepted action changed nothing (the same goal
	// again, no session to reset).
	Message     string       `json:"message,omitempty"`
	Events      []EventView  `json:"events,omitempty"`
	Feature     *FeatureView `json:"feature,omitempty"`
	Session     any          `json:"session,omitempty"` // *SessionSummary, or *model.Session with Full
	NextCommand string       `json:"next_command,omitempty"`
	// Git is what the action did in git (worktree, merge), in sessions
	// whose features run in worktrees.
	Git   *GitReport     `json:"git,omitempty"`
	State *model.Session `json:"-"` // the session after the action, for Go callers
	Raw   []model.Event  `json:"-"` // the events as stored
}

func (r *ActionResult) Refusal() *model.Error { return r.Error }

// Refused is the result of an operation that a rule refused before anything
// was stored.
func Refused(e *model.Error) *ActionResult { return &ActionResult{Error: e} }

// DoSeen executes one action for a caller that decided on the session as
// of sequence expectSeq (its expect_seq; 0: no guard): if what a decides
// changed since, the result is refused with stale_decision. A refusal is in
// the result; the error is for storage and internal failures only. full
// puts the whole session in the result instead of its summary. red removes
// secrets from the action's text (nil: the built-in rules).
func DoSeen(st *db.Store, a model.Action, expectSeq uint64, actor string, now time.Time, full bool, red *patterns.Redactor) (*ActionResult, error) {
	return DoBy(st, a, expectSeq, model.Context{Now: now, Actor: actor}, full, red, Faults{})
}

// DoBy is DoSeen for the caller by says (who, when, and where the call
// came from: by.Via is recorded on the events), with the deliberate
// failures faults asks for (tests of the real binary only).
func DoBy(st *db.Store, a model.Action, expectSeq uint64, by model.Context, full bool, red *patterns.Redactor, faults Faults) (*ActionResult, error) {
	out, git, err := doGit(st, redactAction(a, red), expectSeq, by, faults) // ops/worktrees.go
	refusal, refused := model.AsError(err)
	if err != nil && !refused {
		return nil, err
	}
	res := &ActionResult{OK: !refused, Error: refusal, Git: git}
	if out != nil {
		// Some refusals still store events (a rejected completion, a run
		// start that blocks the session): they are reported beside the error.
		res.State, res.Raw = out.Session, out.Events
		sessionID := ""
		if out.Session != nil {
			sessionID = out.Session.ID
		}
		res.Events = ViewEvents(out.Events, sessionID)
		res.Feature = ViewFeature(out.Session, touchedFeature(out.Events))
		if full && out.Session != nil {
			res.Session = out.Session
		} else if sum := Summarize(out.Session); sum != nil {
			res.Session = sum
		}
		res.NextCommand = model.NextCommand(out.Session)
		if res.OK && len(out.Events) == 0 {
			res.Message = model.Unchanged(a, out.Session)
		}
	}
	return res, nil
}

// StatusResult is the active session as flow status shows it (nil when
// there is none) and its next command.
type StatusResult struct {
	OK          bool           `json:"ok"`
	Session     any            `json:"session,omitempty"` // *StatusView, or *model.Session with full
	NextCommand string         `json:"next_command"`
	State       *model.Session `json:"-"`
	// Trees are the trees the active features' code is at now, where
	// evidence is pinned (render.StatusAt).
	Trees map[string]string `json:"-"`
}

func (*StatusResult) Refusal() *model.Error { return nil }

// Status is the active session and its next command; full is the whole
// stored session (every evidence, review, note and history item).
// A nil st is a project without a database: no session yet.
func Status(st *db.Store, full bool) (*StatusResult, error) {
	var s *model.Session
	var trees map[string]string
	if st != nil {
		var err error
		if s, err = st.Active(); err != nil {
			return nil, err
		}
		if trees, err = CodeTrees(st, s); err != nil {
			return nil, err
		}
	}
	return statusOf(s, full, trees), nil
}

// statusOf is the status result for the active session s, its active
// features' code at trees.
func statusOf(s *model.Session, full bool, trees map[string]string) *StatusResult {
	res := &StatusResult{OK: true, NextCommand: model.NextCommand(s), State: s, Trees: trees}
	switch {
	case s == nil:
	case full:
		res.Session = s
	default:
		res.Session = viewStatusAt(s, trees)
	}
	return res
}

// Failure is the result object of an operation that failed for a reason
// other than a rule: a busy database, storage, a bug.
type Failure struct {
	OK    bool         `json:"ok"`
	Error FailureError `json:"error"`
}

// FailureError says what failed: "internal", or the code of a fault in the
// project's files (path_escapes_project, database_corrupt), with the path at
// fault and what to do.
type FailureError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// Failed wraps err as a Failure.
func Failed(err error) *Failure {
	if f, ok := model.AsFault(err); ok {
		return &Failure{Error: FailureError{Code: f.Code, Message: f.Message, Path: f.Path, Hint: f.Hint}}
	}
	return &Failure{Error: FailureError{Code: "internal", Message: err.Error()}}
}

// ArgError is an argument that no rule needs to see to reject: a malformed
// duration, an unknown format. The CLI calls it a usage error.
type ArgError struct{ msg, field string }

func (e *ArgError) Error() string { return e.msg }

// ArgErrorf makes an *ArgError.
func ArgErrorf(format string, args ...any) error { return &ArgError{msg: fmt.Sprintf(format, args...)} }

// FieldErrorf makes an *ArgError about the argument named field.
func FieldErrorf(field, format string, args ...any) error {
	return &ArgError{msg: fmt.Sprintf(format, args...), field: field}
}

// ArgField is the argument an *ArgError is about, or "".
func ArgField(err error) string {
	var a *ArgError
	if errors.As(err, &a) {
		return a.field
	}
	return ""
}

// IsArgError reports whether err is about the operation's arguments.
func IsArgError(err error) bool {
	var a *ArgError
	return errors.As(err, &a)
}

// orEmpty is xs, or an empty list: a result lists nothing as [], never as
// null, so that agents can iterate without a check.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
