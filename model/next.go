package model

import "strings"

// NextCommand says what a person or an agent should do next in session s
// (nil when there is no active session).
func NextCommand(s *Session) string {
	switch {
	case s == nil || s.Archived:
		return nextPlanStart
	case Landable(s):
		// The work is on the integration branch, not yet on the person's.
		return nextLand
	case s.Status == StatusCompleted:
		return nextPlanStart
	case s.Plan == nil:
		return "flowdeck flow plan apply FILE"
	case s.Approval != ApprovalApproved:
		return "flowdeck flow plan approve"
	}
	if id := s.Execution.ActiveFeature; id != "" {
		// With several active, the most recently started one's step;
		// NextSteps has every active feature's.
		return nextForActive(s, id)
	}
	if len(Runnable(s.Plan)) > 0 || s.Plan.CompletedCount() >= s.Plan.Required() {
		return "flowdeck flow run start"
	}
	if id := firstBlocked(s.Plan); id != "" {
		return "flowdeck flow reset feature " + id
	}
	return "flowdeck flow status"
}

// FeatureState is how a feature looks to the person supervising: finer than
// FeatureStatus, derived from status, dependencies, evidence and reviews.
type FeatureState string

const (
	StatePending        FeatureState = "pending"
	StateRunnable       FeatureState = "runnable"
	StateInProgress     FeatureState = "in_progress"
	StateAwaitingReview FeatureState = "awaiting_review"
	// StateInterrupted is an in-progress feature whose worker crashed or gave
	// up: still claimed, waiting for the person's decision.
	StateInterrupted FeatureState = "interrupted"
	StateNeedsFix    FeatureState = "needs_fix"
	StateBlocked     FeatureState = "blocked"
	StateCompleted   FeatureState = "completed"
)

// Glyph is the state's one-cell mark, so that it reads without colour; the
// CLI, the diagrams' readers and the cockpit all use the same marks.
func (s FeatureState) Glyph() string {
	switch s {
	case StateCompleted:
		return "✓"
	case StateInProgress:
		return "▶"
	case StateAwaitingReview:
		return "?"
	case StateNeedsFix:
		return "✗"
	case StateInterrupted:
		return "!"
	case StateBlocked:
		return "■"
	case StateRunnable:
		return "○"
	}
	return "·"
}

// StateOf derives the display state of feature f in session s.
func StateOf(s *Session, f *Feature) FeatureState {
	switch f.Status {
	case FeatureCompleted:
		return StateCompleted
	case FeatureBlocked:
		return StateBlocked
	case FeaturePending:
		if s.Plan != nil && len(Waiting(s.Plan, *f)) == 0 {
			return StateRunnable
		}
		return StatePending
	}
	if f.Interrupted != nil {
		return StateInterrupted
	}
	since := evidenceSince(f.Validations, f.StartedSeq, "")
	if len(since) == 0 {
		return StateInProgress
	}
	latest := since[len(since)-1]
	r := lastReviewAfter(f.Reviews, latest.Seq)
	if r != nil && r.Decision != ReviewApproved || latest.Status != ValidationPassed {
		return StateNeedsFix
	}
	// A review waits only once every verification command of the plan
	// has passing evidence.
	for _, c := range Checks(f, "") {
		switch c.State {
		case CheckFailed, CheckPartial:
			return StateNeedsFix
		case CheckMissing:
			return StateInProgress
		}
	}
	if r == nil {
		return StateAwaitingReview
	}
	return StateInProgress
}

// BlockReason is why f is blocked, on one line (at most max runes): what the
// worker or reviewer said when it blocked, else its outcome; "" when f is
// not blocked. The cockpit's row, session bar and reset prompt and the HUD
// all say it.
func BlockReason(f *Feature, max int) string {
	if f.Status != FeatureBlocked {
		return ""
	}
	if why := FirstLine(strings.TrimSpace(f.OutcomeNote), max); why != "" {
		return why
	}
	if f.Outcome != "" {
		return string(f.Outcome)
	}
	return "no reason given"
}

// LatestEvidence returns the newest evidence of f since it started (or ever,
// for a feature that is not in progress), or nil.
func LatestEvidence(f *Feature) *Evidence {
	n := len(f.Validations)
	if n == 0 || f.Status == FeatureInProgress && f.Validations[n-1].Seq <= f.StartedSeq {
		return nil
	}
	return &f.Validations[n-1]
}

// AwaitingFinalReview reports whether the session waits for its final review:
// an active feature is the last one, approved, with passing broad evidence and
// no final review after it.
func AwaitingFinalReview(s *Session) bool {
	if s == nil || s.Plan == nil || s.Execution.ActiveFeature == "" {
		return false
	}
	ids := []string{s.Execution.ActiveFeature}
	if s.MaxParallel() > 1 {
		ids = ids[:0]
		for _, c := range ActiveClaims(s) {
			ids = append(ids, c.Feature)
		}
	}
	for _, id := range ids {
		if f := s.Plan.Feature(id); f != nil {
			if err := CompletionGate(s, f); err != nil && err.Code == CodeMissingFinalReview {
				return true
			}
		}
	}
	return false
}
