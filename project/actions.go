package project

import (
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// Do executes one /flow-* action as p's actor through ops.DoSeen, the one
// action path. expectSeq is the session sequence the caller decided on (0:
// no guard); full puts the whole session in the result. A refusal is in the
// result; the error is storage's.
func (p *Project) Do(a model.Action, expectSeq uint64, full bool) (*ops.ActionResult, error) {
	if me := p.personDecision(model.PersonDecision(a)); me != nil {
		return ops.Refused(me), nil
	}
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return ops.DoBy(st, p.withConfigDefaults(a), expectSeq, p.by(), full, p.actionRedactor(), p.opts.Faults)
}

// Status is the active session and its next command (no session when the
// project has no database; none is created).
func (p *Project) Status(full bool) (*ops.StatusResult, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.Status(st, full)
}

// Active is the active session, nil when there is none.
func (p *Project) Active() (*model.Session, error) {
	st, err := p.reader()
	if err != nil || st == nil {
		return nil, err
	}
	return st.Active()
}

// History lists the sessions, or one session's events.
func (p *Project) History(sessionID string) (ops.Result, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.History(st, sessionID)
}

// Diagram draws the active plan's DAG as ascii, mermaid or dot.
func (p *Project) Diagram(format string) (ops.Result, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.Diagram(st, format)
}

// Recall searches the indexed output.
func (p *Project) Recall(q model.RecallQuery) (*ops.RecallResult, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.Recall(st, q)
}

// Hits is Recall's hits without the result object (the cockpit).
func (p *Project) Hits(q model.RecallQuery) ([]model.Hit, error) {
	st, err := p.reader()
	if err != nil || st == nil {
		return nil, err
	}
	return st.Recall(q)
}

// Runs lists the newest runs; the flows' plumbing only when all.
func (p *Project) Runs(limit int, all bool) (*ops.RunsResult, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.Runs(st, limit, all)
}

// HUD is what matters now, for an agent's context.
func (p *Project) HUD() (*ops.HUD, error) {
	return p.HUDFor(ops.HUDSelf{})
}

// HUDFor is the HUD as reader self sees it (ops.BuildHUDFor).
func (p *Project) HUDFor(self ops.HUDSelf) (*ops.HUD, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.BuildHUDFor(st, self)
}

// FleetGlance is what the project tells a fleet (ops.BuildFleetGlance): a
// project without a database reads as having no session, and none is
// created.
func (p *Project) FleetGlance() (*ops.FleetGlance, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.BuildFleetGlance(st, p.Root())
}

// AgentEvents are the agents' latest lifecycle events.
func (p *Project) AgentEvents() ([]model.AgentEvent, error) {
	st, err := p.reader()
	if err != nil || st == nil {
		return nil, err
	}
	return st.AgentEvents()
}

// RecordAgentEvent keeps ev as its agent's latest event.
func (p *Project) RecordAgentEvent(ev model.AgentEvent) error {
	st, err := p.store()
	if err != nil {
		return err
	}
	return st.RecordAgentEvent(ev)
}

// Decisions lists the pending decisions (all: resolved ones too) after
// settling the runs and decisions that are due.
func (p *Project) Decisions(all bool) (*ops.DecisionsResult, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return ops.Decisions(st, all, p.Actor(), p.Now())
}

// Decision is one decision.
func (p *Project) Decision(id string) (*model.Decision, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.Decision(id)
}

// Resolve answers a decision.
func (p *Project) Resolve(id string, a flows.Answer) (ops.Result, error) {
	if me := p.personDecision(model.DecisionFlow); me != nil {
		return ops.Refused(me), nil
	}
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return ops.Resolve(st, id, a, p.by())
}

// ResolveDecision answers a decision and returns it as it stands (the
// cockpit; Resolve is the result object).
func (p *Project) ResolveDecision(id string, a flows.Answer) (*model.Decision, error) {
	if me := p.personDecision(model.DecisionFlow); me != nil {
		return nil, me
	}
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return flows.ResolveDecisionBy(st, id, a, p.by())
}

// Verify replays every session's log against the stored state.
func (p *Project) Verify() (*model.VerifyReport, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.Verify()
}

// Snapshot reads everything the cockpit redraws from in one transaction,
// with at most runs runs.
func (p *Project) Snapshot(runs int) (*model.Snapshot, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.Snapshot(runs)
}

// Stamp changes whenever the project's state does: a cheap check for
// watchers.
func (p *Project) Stamp() (string, error) {
	st, err := p.store()
	if err != nil {
		return "", err
	}
	return st.Stamp()
}

// Sessions lists the stored sessions, newest first.
func (p *Project) Sessions() ([]model.SessionInfo, error) {
	st, err := p.reader()
	if err != nil || st == nil {
		return nil, err
	}
	return st.Sessions()
}

// ReadDoc reads a rendered doc of a session, beneath the project.
func (p *Project) ReadDoc(sessionID, rel string) ([]byte, error) {
	st, err := p.store()
	if err != nil {
		return nil, err
	}
	return st.ReadDoc(sessionID, rel)
}

// Land merges the active session's integration branch into the branch
// checked out in the project, only when asked (flow land), and records the
// landing as p's actor.
func (p *Project) Land(force bool) (*ops.LandResult, error) {
	return p.LandSeen(force, 0)
}

// LandSeen is Land decided on the session as of sequence seen (0: no
// guard): refused with stale_decision if what it lands changed since.
func (p *Project) LandSeen(force bool, seen uint64) (*ops.LandResult, error) {
	if me := p.personDecision(model.DecisionLand); me != nil {
		return &ops.LandResult{Error: me}, nil // before any git work
	}
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.Land(st, ops.LandRequest{Force: force, Seen: seen, Actor: p.Actor(), Via: p.via, Now: p.Now()})
}

// LandTarget is the branch land would merge into (ops.LandTarget).
func (p *Project) LandTarget() (string, error) {
	st, err := p.reader()
	if err != nil {
		return "", err
	}
	return ops.LandTarget(st)
}

// Diff is the change of a feature or of the session (ops.Diff).
func (p *Project) Diff(r ops.DiffRequest) (*ops.DiffResult, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.Diff(st, r)
}

// CodeTrees are the trees the active features' code is at now, where s has
// evidence pinned to trees (ops.CodeTrees).
func (p *Project) CodeTrees(s *model.Session) (map[string]string, error) {
	st, err := p.reader()
	if err != nil {
		return nil, err
	}
	return ops.CodeTrees(st, s)
}
