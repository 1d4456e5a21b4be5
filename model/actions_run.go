package model

import (
	"fmt"
	"strings"
)

func (a RunStart) decide(s *Session, b *builder) error {
	if err := requireApproved(s, "Review the plan, then approve it."); err != nil {
		return err
	}
	limit := s.MaxParallel()
	if act := s.Execution.ActiveFeature; act != "" && limit == 1 {
		return refuse(CodeFeatureAlreadyActive, string(s.Status), "no active feature",
			"Finish the active feature first: validate, review, then complete it.",
			NextCommand(s), "feature %s is already active", act)
	}
	if err := checkTree("base", a.Base); err != nil {
		return err
	}
	if a.Agent != "" {
		if err := CheckAgentName("agent", a.Agent); err != nil {
			return err
		}
	}
	var f *Feature
	if a.Feature != "" {
		var err error
		if f, err = requireFeature(s, a.Feature); err != nil {
			return err
		}
	}
	if err := checkCapacity(s, f, limit); err != nil {
		return err
	}
	if s.Plan.CompletedCount() >= s.Plan.Required() {
		b.emit(Event{Type: EventSessionCompleted, Summary: "every required feature is completed"})
		return nil
	}
	if f != nil {
		switch {
		case f.Status == FeatureCompleted:
			return refuse(CodeFeatureNotRunnable, string(s.Status), "a feature that is not completed",
				"Reset the feature to run it again.", "", "feature %s is already completed", f.ID).
				withAction("flow", "reset", "feature", f.ID)
		case f.Status == FeatureBlocked:
			return refuse(CodeFeatureNotRunnable, string(s.Status), "a feature that is not blocked",
				"Reset the feature once what blocked it is resolved.", "", "feature %s is blocked", f.ID).
				withAction("flow", "reset", "feature", f.ID)
		}
		if waiting := Waiting(s.Plan, *f); len(waiting) > 0 {
			next := NextCommand(s) // run start only when it would claim another feature
			if len(Runnable(s.Plan)) > 0 {
				next = "flowdeck flow run start"
			}
			return refuse(CodeFeatureNotRunnable, string(s.Status), "completed dependencies and blockers",
				"Complete what it waits for first.", next,
				"feature %s waits for %s", f.ID, strings.Join(waiting, ", "))
		}
		b.emit(Event{Type: EventFeatureStarted, Feature: f.ID, Agent: a.Agent, FeatureGit: featureGit(s, f.ID), Tree: a.Base})
		return nil
	}
	if order := ClaimOrder(s); len(order) > 0 {
		b.emit(Event{Type: EventFeatureStarted, Feature: order[0], Agent: a.Agent, FeatureGit: featureGit(s, order[0]), Tree: a.Base})
		return nil
	}
	why := BlockReasons(s.Plan)
	if claims := ActiveClaims(s); len(claims) > 0 {
		// Others are at work: nothing is claimable yet, but the session is
		// not blocked, so no session_blocked event.
		return refuse(CodeNoRunnableFeature, string(s.Status), "a feature whose dependencies and blockers are completed",
			"Wait for the active features to complete: "+claimsText(claims)+".", NextCommand(s),
			"no feature is claimable while %s %s active: %s", claimsText(claims), isAre(len(claims)), why)
	}
	if s.Status != StatusBlocked {
		b.emit(Event{Type: EventSessionBlocked, Summary: "no runnable feature: " + why})
	}
	next := "flowdeck flow status"
	if blocked := firstBlocked(s.Plan); blocked != "" {
		next = "flowdeck flow reset feature " + blocked
	}
	return refuse(CodeNoRunnableFeature, string(StatusBlocked), "a feature whose dependencies and blockers are completed",
		"Resolve what blocks the features, then reset the blocked ones.", next,
		"no feature is runnable: %s", why)
}

// checkCapacity refuses a claim of f (nil: the next claimable one) when f is
// already active or max_parallel features are.
func checkCapacity(s *Session, f *Feature, limit int) error {
	if f != nil && f.Status == FeatureInProgress {
		who := ""
		if f.Agent != "" {
			who = " by agent " + f.Agent
		}
		return refuse(CodeFeatureAlreadyActive, string(s.Status), "a feature that is not active",
			"Work on it, or claim another feature.", nextForActive(s, f.ID),
			"feature %s is already active%s", f.ID, who)
	}
	claims := ActiveClaims(s)
	if len(claims) < limit {
		return nil
	}
	return refuse(CodeMaxParallelReached, string(s.Status), fmt.Sprintf("fewer than %d active features", limit),
		fmt.Sprintf("The plan allows %d active features at once: finish, block or reset one of them first.", limit),
		NextCommand(s), "%d features are active (%s): max_parallel is %d", len(claims), claimsText(claims), limit)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// BlockReasons says, for every feature that is neither completed nor active,
// what keeps it from running.
func BlockReasons(p *Plan) string {
	var parts []string
	for _, f := range p.Features {
		switch f.Status {
		case FeatureBlocked:
			parts = append(parts, f.ID+" is blocked")
		case FeaturePending:
			if w := Waiting(p, f); len(w) > 0 {
				parts = append(parts, f.ID+" waits for "+strings.Join(w, ", "))
			}
		}
	}
	return strings.Join(parts, "; ")
}

func firstBlocked(p *Plan) string {
	for _, f := range p.Features {
		if f.Status == FeatureBlocked {
			return f.ID
		}
	}
	return ""
}
