package ops

import (
	"errors"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// DecisionsResult lists the questions that flows wait on, oldest first.
type DecisionsResult struct {
	OK        bool             `json:"ok"`
	Decisions []model.Decision `json:"decisions"`
}

func (*DecisionsResult) Refusal() *model.Error { return nil }

// Decisions lists the pending decisions, or all of them, after settling the
// runs that died mid-action and the decisions that are due (flows.Settle),
// so that every decision listed as pending can still be answered.
func Decisions(st *db.Store, all bool, actor string, now time.Time) (*DecisionsResult, error) {
	if err := flows.Settle(st, actor, now); err != nil {
		return nil, err
	}
	list, err := st.Decisions(!all)
	if err != nil {
		return nil, err
	}
	return &DecisionsResult{OK: true, Decisions: orEmpty(list)}, nil
}

// DecisionResult is a decision as it stands after an answer, and whether
// its flow run goes on in the process that executes it.
type DecisionResult struct {
	OK           bool            `json:"ok"`
	Decision     *model.Decision `json:"decision"`
	RunContinues bool            `json:"run_continues"`
}

func (*DecisionResult) Refusal() *model.Error { return nil }

// Resolve answers a decision through flows.ResolveDecisionBy, as the
// caller by says. An answer that does not fit the decision, or comes after
// its run ended, is refused in the result.
func Resolve(st *db.Store, id string, a flows.Answer, by model.Context) (Result, error) {
	d, err := flows.ResolveDecisionBy(st, id, a, by)
	if refusal, ok := model.AsError(err); ok {
		return Refused(refusal), nil
	}
	var ended model.ErrFlowRunEnded
	if errors.As(err, &ended) {
		return Refused(&model.Error{Code: model.CodeFlowRunEnded, Message: err.Error()}), nil
	}
	if err != nil {
		return nil, err
	}
	return &DecisionResult{OK: true, Decision: d, RunContinues: d.FlowRun != "" && flows.Executing(st, d.FlowRun)}, nil
}
