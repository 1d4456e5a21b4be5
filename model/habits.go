package model

import "strings"

// Flow's session habits: starting the same goal again continues the
// session, another goal replaces it (archived, kept in history), and
// resetting nothing is not an error.

// inProgress reports whether s is an active session that is not completed.
func inProgress(s *Session) bool {
	return s != nil && s.Status != StatusCompleted && !s.Archived
}

// SameGoal reports whether two goals are the same, case and spacing aside.
func SameGoal(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// StartReplaces reports whether starting a session for goal replaces the
// active session: it is in progress with another goal. As in Flow, the
// active session is then archived (kept in history) and a new one starts.
func StartReplaces(active *Session, goal string) bool {
	return inProgress(active) && strings.TrimSpace(goal) != "" && !SameGoal(active.Goal, goal)
}

// Unchanged says why an accepted action a stored nothing; s is the active
// session.
func Unchanged(a Action, s *Session) string {
	switch a.(type) {
	case PlanStart:
		if s != nil {
			return "session " + s.ID + " already has this goal: it goes on unchanged"
		}
	case ResetSession:
		return "there is no active session: nothing to reset"
	case ActivateSession:
		if s != nil {
			return "session " + s.ID + " is already active"
		}
	case Land:
		if s != nil && s.Landed != nil {
			return "session " + s.ID + " already landed into " + s.Landed.Branch + " at " + ShortCommit(s.Landed.Commit)
		}
	}
	return ""
}
