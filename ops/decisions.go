package ops

import (
	"flowdeck/db"
	"flowdeck/model"
)

// DecisionsResult lists the questions that flows wait on, oldest first.
type DecisionsResult struct {
	OK        bool          `json:"ok"`
	Decisions []db.Decision `json:"decisions"`
}

func (*DecisionsResult) Refusal() *model.Error { return nil }

// Decisions lists the pending decisions, or all of them. (Settling the
// ones that are due, and the runs that died mid-action, is the caller's:
// that belongs to package flows.)
func Decisions(st *db.Store, all bool) (*DecisionsResult, error) {
	list, err := st.Decisions(!all)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []db.Decision{}
	}
	return &DecisionsResult{OK: true, Decisions: list}, nil
}

// DecisionResult is a decision as it stands after an answer, and whether
// its flow run goes on in the process that executes it.
type DecisionResult struct {
	OK           bool         `json:"ok"`
	Decision     *db.Decision `json:"decision"`
	RunContinues bool         `json:"run_continues"`
}

func (*DecisionResult) Refusal() *model.Error { return nil }
