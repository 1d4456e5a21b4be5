package model

import "time"

// EventType names what happened. Events are the source of truth; the
// materialized Session is what Apply makes of them.
type EventType string

const (
	EventSessionStarted     EventType = "session_started"
	EventPlanApplied        EventType = "plan_applied"
	EventPlanSelected       EventType = "plan_selected"
	EventPlanApproved       EventType = "plan_approved"
	EventFeatureStarted     EventType = "feature_started"
	EventValidationRecorded EventType = "validation_recorded"
	EventReviewRecorded     EventType = "review_recorded"
	EventFeatureCompleted   EventType = "feature_completed"
	EventCompletionRejected EventType = "completion_rejected"
	EventReplanRequired     EventType = "replan_required"
	EventFeatureBlocked     EventType = "feature_blocked"
	EventSessionCompleted   EventType = "session_completed"
	EventSessionBlocked     EventType = "session_blocked"
	EventFeaturesReset      EventType = "features_reset"
	EventSessionArchived    EventType = "session_archived"
	EventSessionActivated   EventType = "session_activated"
	EventNoteAdded          EventType = "note_added"
)

// Event is one entry of a session's append-only log. Only the fields its Type
// needs are set; everything Apply needs is in the event, so replay never
// depends on the clock or on anything outside the log.
type Event struct {
	Seq     uint64    `json:"seq"`
	Session string    `json:"session"`
	Type    EventType `json:"type"`
	At      time.Time `json:"at"`
	Actor   string    `json:"actor"`

	Goal       string    `json:"goal,omitempty"`
	Plan       *Plan     `json:"plan,omitempty"`
	Feature    string    `json:"feature,omitempty"`
	FeatureIDs []string  `json:"feature_ids,omitempty"`
	Evidence   *Evidence `json:"evidence,omitempty"`
	Review     *Review   `json:"review,omitempty"`
	Outcome    Outcome   `json:"outcome,omitempty"`
	Code       string    `json:"code,omitempty"`
	Summary    string    `json:"summary,omitempty"`
	Text       string    `json:"text,omitempty"`
}
