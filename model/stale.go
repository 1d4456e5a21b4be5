package model

import (
	"fmt"
	"slices"
)

// CodeStaleDecision refuses an action whose caller decided on a state that
// has changed since: the thing it decides was reviewed, completed, reset or
// blocked by someone else after the sequence the caller saw.
const CodeStaleDecision = "stale_decision"

// Stale checks an action against the events stored after seen, the session
// sequence its caller looked at. It returns nil when none of them touches
// what the action decides (unrelated progress does not make a decision
// stale), else a refusal naming the latest such event: who changed it and
// how. Actions that decide nothing about existing state are never stale.
func Stale(a Action, seen uint64, since []Event) *Error {
	var hit *Event
	for i := range since {
		if since[i].Seq > seen && touches(a, since[i]) {
			hit = &since[i]
		}
	}
	if hit == nil {
		return nil
	}
	what := staleWhat(a)
	e := refuse(CodeStaleDecision, "stale", "the state you decided on",
		"Look again at what changed and decide on the current state.",
		"flowdeck flow status",
		"%s changed after you looked (sequence %d): %s by %s at %s",
		what, seen, Describe(*hit), hit.Actor, hit.At.UTC().Format("15:04:05"))
	return e.withAction("flow", "status")
}

// sessionWide are the events that change what every decision was about.
var sessionWide = []EventType{EventPlanApplied, EventPlanSelected, EventSessionArchived, EventSessionActivated,
	EventSessionCompleted, EventSessionBlocked}

// touches reports whether event e changes what action a decides.
func touches(a Action, e Event) bool {
	if e.Type == EventNoteAdded {
		return false
	}
	if slices.Contains(sessionWide, e.Type) {
		switch a.(type) {
		case PlanStart, PlanApply, AddNote, ActivateSession:
			return false
		}
		return true
	}
	switch a := a.(type) {
	case ReviewFeature:
		return onFeature(e, a.Feature)
	case RunComplete:
		return onFeature(e, a.Feature)
	case Validate:
		return onFeature(e, a.Feature)
	case ResetFeature:
		return onFeature(e, a.Feature)
	case RunStart:
		return a.Feature == "" || onFeature(e, a.Feature)
	case ReviewFinal:
		// The final review decides on everything the session did.
		return true
	case PlanApprove:
		return e.Type == EventPlanApproved
	case ResetSession:
		return e.Type == EventPlanApproved || e.Type == EventFeaturesReset
	case Land:
		// What would land changed, or someone landed it meanwhile.
		return e.Type == EventFeatureCompleted || e.Type == EventFeaturesReset || e.Type == EventSessionLanded
	}
	return false
}

func onFeature(e Event, id string) bool {
	return e.Feature == id || slices.Contains(e.FeatureIDs, id)
}

func staleWhat(a Action) string {
	switch a := a.(type) {
	case ReviewFeature:
		return "the review of " + a.Feature
	case RunComplete:
		return a.Feature
	case Validate:
		return a.Feature
	case ResetFeature:
		return a.Feature
	case RunStart:
		if a.Feature != "" {
			return a.Feature
		}
	case ReviewFinal:
		return "the session (final review)"
	case PlanApprove:
		return "the plan"
	case Land:
		return "the session's integration branch"
	}
	return fmt.Sprintf("the session (%s)", a.Name())
}
