package ops

import (
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// SessionsResult lists the stored sessions, newest first.
type SessionsResult struct {
	OK       bool                `json:"ok"`
	Sessions []model.SessionInfo `json:"sessions"`
}

func (*SessionsResult) Refusal() *model.Error { return nil }

// HistoryResult is one session's whole event log, oldest first.
type HistoryResult struct {
	OK      bool          `json:"ok"`
	Session string        `json:"session"`
	Events  []model.Event `json:"events"`
}

func (*HistoryResult) Refusal() *model.Error { return nil }

// History lists the stored sessions (sessionID "") or returns one session's
// event log; an unknown id is refused.
// A nil st is a project without a database: no sessions.
func History(st *db.Store, sessionID string) (Result, error) {
	if st == nil && sessionID == "" {
		return &SessionsResult{OK: true, Sessions: []model.SessionInfo{}}, nil
	} else if st == nil {
		return Refused(&model.Error{Code: model.CodeUnknownSession, Message: "no session " + sessionID,
			Recovery: model.Recovery{Hint: "flowdeck flow history lists the stored sessions.", NextCommand: "flowdeck flow history"}}), nil
	}
	if sessionID == "" {
		list, err := st.Sessions()
		if err != nil {
			return nil, err
		}
		return &SessionsResult{OK: true, Sessions: orEmpty(list)}, nil
	}
	sess, err := st.Session(sessionID)
	if err != nil {
		return nil, err
	}
	if sess == nil {
		return Refused(&model.Error{Code: model.CodeUnknownSession, Message: "no session " + sessionID,
			Recovery: model.Recovery{Hint: "flowdeck flow history lists the stored sessions.", NextCommand: "flowdeck flow history"}}), nil
	}
	events, err := st.Events(sess.ID, 1, 0)
	if err != nil {
		return nil, err
	}
	return &HistoryResult{OK: true, Session: sess.ID, Events: orEmpty(events)}, nil
}

// DiagramResult is the active plan's dependency graph drawn in a format.
type DiagramResult struct {
	OK      bool   `json:"ok"`
	Format  string `json:"format"`
	Diagram string `json:"diagram"`
}

func (*DiagramResult) Refusal() *model.Error { return nil }

// Diagram draws the active plan as ascii, mermaid or dot ("" = ascii). No
// plan is refused; an unknown format is an *ArgError. A nil st is a project
// without a database: no plan.
func Diagram(st *db.Store, format string) (Result, error) {
	if format == "" {
		format = "ascii"
	}
	var s *model.Session
	if st != nil {
		var err error
		if s, err = st.Active(); err != nil {
			return nil, err
		}
	}
	if s == nil || s.Plan == nil {
		return Refused(&model.Error{Code: model.CodeNoPlan, Message: "there is no active plan to draw",
			Recovery: model.Recovery{Hint: "Start a session and apply a plan.", NextCommand: model.NextCommand(s)}}), nil
	}
	out, err := render.Diagram(s, format)
	if err != nil {
		return nil, ArgErrorf("%v", err)
	}
	return &DiagramResult{OK: true, Format: format, Diagram: out}, nil
}

// RecallResult is the best matching lines of stored output.
type RecallResult struct {
	OK      bool        `json:"ok"`
	Hits    []model.Hit `json:"hits"`
	Message string      `json:"message,omitempty"` // NoResults when there are none
}

// NoResults is what recall says when nothing matches (exit 0, as oo).
const NoResults = "No results found"

func (*RecallResult) Refusal() *model.Error { return nil }

// Recall fuzzy-searches the indexed output.
// A nil st is a project without a database: nothing stored.
func Recall(st *db.Store, q model.RecallQuery) (*RecallResult, error) {
	var hits []model.Hit
	if st != nil {
		var err error
		if hits, err = st.Recall(q); err != nil {
			return nil, err
		}
	}
	res := &RecallResult{OK: true, Hits: orEmpty(hits)}
	if len(hits) == 0 {
		res.Message = NoResults
	}
	return res, nil
}

// RunsResult lists run records, newest first.
type RunsResult struct {
	OK   bool              `json:"ok"`
	Runs []model.RunRecord `json:"runs"`
}

func (*RunsResult) Refusal() *model.Error { return nil }

// Runs lists at most limit runs (0 = all), without their output detail,
// and without the flows' plumbing unless all. A nil st is a project
// without a database: no runs.
func Runs(st *db.Store, limit int, all bool) (*RunsResult, error) {
	if st == nil {
		return &RunsResult{OK: true, Runs: []model.RunRecord{}}, nil
	}
	runs, err := st.RunsOf(limit, all)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].Detail = "" // up to 32 KiB each: flowdeck show RUN has it
	}
	return &RunsResult{OK: true, Runs: orEmpty(runs)}, nil
}
