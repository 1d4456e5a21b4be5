package model

import (
	"fmt"
	"slices"
	"strings"
)

func (a PlanStart) decide(s *Session, b *builder) error {
	if inProgress(s) && SameGoal(s.Goal, a.Goal) {
		return nil // Flow's habit: the same goal again continues the session
	}
	if inProgress(s) {
		return refuse(CodeSessionAlreadyActive, string(s.Status), "no session in progress",
			"Session "+s.ID+" is still in progress. Archive it first (it stays in history), or finish it.",
			"flowdeck flow reset session", "session %s is active (%s)", s.ID, s.Goal).withAction("flow", "reset", "session")
	}
	goal := strings.TrimSpace(a.Goal)
	if goal == "" {
		return invalidArg("goal", "the goal is empty")
	}
	if !ValidSessionID(a.ID) {
		return refuse(CodeInvalidSessionID, "", "a valid session id", "Session ids are kebab-case.",
			nextPlanStart, "invalid session id %s", quoteID(a.ID))
	}
	b.session, b.seq = a.ID, 0
	e := Event{Type: EventSessionStarted, Goal: goal}
	if a.Replaces != "" {
		e.Summary = "replaces session " + a.Replaces + ", archived"
	}
	b.emit(e)
	return nil
}

// PlanEditable refuses, as a plan apply would whatever the plan, a session
// whose plan cannot be replaced now: none active, completed, or a feature
// in progress. An editor asks it before it opens, so nobody writes a plan
// that the state refuses anyway.
func PlanEditable(s *Session) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if s.Execution.ActiveFeature != "" {
		return refuse(CodePlanNotEditable, string(s.Status), "no active feature",
			"Finish or reset the active feature before replacing the plan.",
			"flowdeck flow reset feature "+s.Execution.ActiveFeature,
			"feature %s is in progress", s.Execution.ActiveFeature)
	}
	return nil
}

func (a PlanApply) decide(s *Session, b *builder) error {
	if err := PlanEditable(s); err != nil {
		return err
	}
	if err := ValidatePlan(&a.Plan); err != nil {
		return err
	}
	if a.Plan.Completion.MinCompletedFeatures < 0 {
		return refuse(CodePlanInvalid, "planning", "a non-negative completion.min_completed_features",
			"Leave min_completed_features out to require every feature.",
			"flowdeck flow plan apply FILE", "completion.min_completed_features is negative")
	}
	if m := a.Plan.MaxParallel; m < 0 || m > MaxParallelLimit {
		return refuse(CodePlanInvalid, "planning", fmt.Sprintf("max_parallel between 1 and %d", MaxParallelLimit),
			"Leave max_parallel out (or 1) for one active feature at a time.",
			"flowdeck flow plan apply FILE", "max_parallel is %d; it must be between 1 and %d", m, MaxParallelLimit)
	}
	plan := normalizePlan(a.Plan)
	b.emit(Event{Type: EventPlanApplied, Plan: &plan})
	return nil
}

// normalizePlan copies p with every feature reset to pending and no execution
// data, so that the stored event is exactly what Apply installs.
func normalizePlan(p Plan) Plan {
	out := p
	out.Requirements = slices.Clone(p.Requirements)
	out.Decisions = slices.Clone(p.Decisions)
	out.Features = make([]Feature, len(p.Features))
	for i, f := range p.Features {
		title := strings.TrimSpace(f.Title)
		if title == "" {
			title = f.ID
		}
		out.Features[i] = Feature{
			ID: f.ID, Title: title, Summary: f.Summary,
			Files:        slices.Clone(f.Files),
			Verification: slices.Clone(f.Verification),
			DependsOn:    slices.Clone(f.DependsOn),
			BlockedBy:    slices.Clone(f.BlockedBy),
			Status:       FeaturePending,
		}
	}
	return out
}

func (a PlanSelect) decide(s *Session, b *builder) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if err := requirePlan(s); err != nil {
		return err
	}
	if s.Status != StatusPlanning || s.Execution.ActiveFeature != "" {
		return refuse(CodePlanNotEditable, string(s.Status), "a session in planning with no active feature",
			"The plan can be narrowed only while planning. A replan_required outcome or a new plan returns the session to planning.",
			"flowdeck flow status", "session %s is %s; the plan can be narrowed only while planning", s.ID, s.Status)
	}
	if len(a.FeatureIDs) == 0 {
		return invalidArg("feature_ids", "select needs at least one feature id")
	}
	keep := map[string]bool{}
	for _, id := range a.FeatureIDs {
		if _, err := requireFeature(s, id); err != nil {
			return err
		}
		keep[id] = true
	}
	var missing []string
	var kept []string
	for _, f := range s.Plan.Features {
		if !keep[f.ID] {
			continue
		}
		kept = append(kept, f.ID)
		for _, d := range edges(f) {
			if !keep[d] {
				missing = append(missing, f.ID+" needs "+d)
			}
		}
	}
	if len(missing) > 0 {
		return refuse(CodeSelectionMissingDep, "planning", "a selection closed under dependencies",
			"Add the missing dependencies to the selection.",
			"flowdeck flow plan select "+strings.Join(kept, " ")+" ...",
			"the selection leaves out dependencies: %s", strings.Join(missing, ", "))
	}
	b.emit(Event{Type: EventPlanSelected, FeatureIDs: kept})
	return nil
}

func (a PlanApprove) decide(s *Session, b *builder) error {
	if err := requireOpen(s); err != nil {
		return err
	}
	if err := requirePlan(s); err != nil {
		return err
	}
	// Not only while planning: after a replan while other features ran on,
	// the session is running, ready or blocked and still awaits approval.
	if s.Approval == ApprovalApproved {
		return refuse(CodePlanAlreadyApproved, string(s.Status), "a plan awaiting approval",
			"The plan is already approved; execution has its own commands.",
			NextCommand(s), "the plan of session %s is already approved", s.ID)
	}
	if err := checkGitSetup(s, a.Git); err != nil {
		return err
	}
	if err := checkTree("base", a.Base); err != nil {
		return err
	}
	e := b.emit(Event{Type: EventPlanApproved})
	if s.Base == "" {
		e.Tree = a.Base
	}
	if s.Git == nil && a.Git != nil {
		g := *a.Git
		e.Git = &g
	}
	return nil
}
