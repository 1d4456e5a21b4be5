package project

import (
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// FlowRuns lists the flow runs, newest first.
func (p *Project) FlowRuns() ([]model.FlowRun, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.FlowRuns()
}

// FlowRun is one flow run (model.ErrNoFlowRun when unknown).
func (p *Project) FlowRun(id string) (*model.FlowRun, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.FlowRun(id)
}

// FlowEvents are a flow run's events with seq >= from (at most limit; 0:
// all).
func (p *Project) FlowEvents(id string, from uint64, limit int) ([]model.FlowEvent, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.FlowEvents(id, from, limit)
}

// FlowView reads everything a flow pane shows about run id.
func (p *Project) FlowView(id string) (*flows.RunView, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return flows.View(st, id)
}

// FlowExecuting reports whether a process executes flow run id now.
func (p *Project) FlowExecuting(id string) bool {
	st, err := p.store()
	if err != nil {
		return false
	}
	return flows.Executing(st, id)
}

// SettleFlows marks the runs whose process is gone as interrupted and
// settles the decisions that are due.
func (p *Project) SettleFlows() error {
	st, err := p.store()
	if err != nil {
		return err
	}
	return flows.Settle(st, p.Actor(), p.Now())
}

// RecoverFlows marks the runs whose process is gone as interrupted and
// returns them.
func (p *Project) RecoverFlows() ([]model.FlowRun, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return flows.Recover(st, p.Actor(), p.Now())
}

// PauseFlowRun asks the process executing a run to stop after its step.
func (p *Project) PauseFlowRun(id string) (*model.FlowRun, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return flows.PauseRun(st, id, p.Actor(), p.Now())
}

// CancelFlowRun cancels a run: its command is stopped and its pending
// decision withdrawn.
func (p *Project) CancelFlowRun(id string) (*model.FlowRun, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return flows.CancelRun(st, id, p.Actor(), p.Now())
}

// RunRecord is one stored run.
func (p *Project) RunRecord(id string) (*model.RunRecord, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.Run(id)
}

// ReadOutput reads at most max bytes of a run's output from offset and
// returns the offset after them.
func (p *Project) ReadOutput(id string, offset int64, max int) ([]byte, int64, error) {
	st, err := p.store()
	if err != nil {
		return nil, 0, err
	}
	return st.ReadOutput(id, offset, max)
}

// Forget deletes the selected runs' output and index and returns how many
// runs it touched.
func (p *Project) Forget(q model.ForgetQuery) (int, error) {
	st, err := p.store()
	if err != nil {
		return 0, err
	}
	return st.Forget(q)
}
