package model

// Step is one action on one session. An action that touches two sessions is
// several steps, which the store runs in one transaction: a new goal
// archives the session in progress first (kept in history), and activating
// a stored session archives the active one first.
type Step struct {
	Session *Session
	Action  Action
}

// Steps returns the steps that carry out a. active is the active session;
// target is the stored session an ActivateSession names (nil for other
// actions, or when no such session is stored: Decide then refuses it). A
// PlanStart must carry its new session's ID. No steps means that a is
// already done (activating the active session).
func Steps(active, target *Session, a Action) []Step {
	switch act := a.(type) {
	case PlanStart:
		if StartReplaces(active, act.Goal) {
			act.Replaces = active.ID
			return []Step{{active, ResetSession{Reason: "replaced by session " + act.ID}}, {active, act}}
		}
		return []Step{{active, act}}
	case ActivateSession:
		switch {
		case active != nil && target != nil && active.ID == target.ID:
			return nil
		case active != nil && target != nil:
			return []Step{{active, ResetSession{}}, {target, act}}
		}
		return []Step{{target, act}}
	}
	return []Step{{active, a}}
}
