package model

import (
	"fmt"
	"strings"
	"time"
)

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
	EventMergeConflict      EventType = "merge_conflict"
	EventFeatureInterrupted EventType = "feature_interrupted"
	EventFeatureResumed     EventType = "feature_resumed"
	EventSessionLanded      EventType = "session_landed"
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
	// Via is where the actor's call came from (Context.Via), e.g.
	// "fleet@laptop"; absent for calls made on the project's machine.
	Via string `json:"via,omitempty"`

	Goal       string    `json:"goal,omitempty"`
	Plan       *Plan     `json:"plan,omitempty"`
	Feature    string    `json:"feature,omitempty"`
	Agent      string    `json:"agent,omitempty"`
	FeatureIDs []string  `json:"feature_ids,omitempty"`
	Evidence   *Evidence `json:"evidence,omitempty"`
	Review     *Review   `json:"review,omitempty"`
	Outcome    Outcome   `json:"outcome,omitempty"`
	Code       string    `json:"code,omitempty"`
	Summary    string    `json:"summary,omitempty"`
	Text       string    `json:"text,omitempty"`
	// Git is the session's git setup (plan_approved), a started feature's
	// branch and worktree (feature_started).
	Git        *GitSetup   `json:"git,omitempty"`
	FeatureGit *FeatureGit `json:"feature_git,omitempty"`
	// Commit is the integration branch's head after a feature_completed's
	// merge and Base its head before (what a reset reverts the merge to);
	// Files are the paths of a merge_conflict.
	Commit string   `json:"commit,omitempty"`
	Base   string   `json:"base,omitempty"`
	Files  []string `json:"files,omitempty"`
	// Branch is the person's branch a session_landed landed on, and
	// Commit its head afterwards.
	Branch string `json:"branch,omitempty"`
	// Tree is the git tree the code was at: the session's base
	// (plan_approved) or the feature's (feature_started).
	Tree string `json:"tree,omitempty"`
}

// Describe is an event's one line of history: what the docs' history shows
// and what the cockpit says after an action.
func Describe(e Event) string {
	switch e.Type {
	case EventSessionStarted:
		return "session started: " + e.Goal
	case EventPlanApplied:
		n := 0
		if e.Plan != nil {
			n = len(e.Plan.Features)
		}
		return fmt.Sprintf("plan applied: %d features", n)
	case EventPlanSelected:
		return "plan narrowed to " + strings.Join(e.FeatureIDs, ", ")
	case EventPlanApproved:
		if g := e.Git; g != nil {
			from := g.Base
			if from == "" {
				from = ShortCommit(g.BaseCommit)
			}
			return "plan approved; features in worktrees, merged into " + g.Integration + " (from " + from + ")"
		}
		return "plan approved"
	case EventFeatureStarted:
		where := ""
		if e.FeatureGit != nil {
			where = " in " + e.FeatureGit.Worktree
		}
		if e.Agent != "" {
			return "started " + e.Feature + " (agent " + e.Agent + ")" + where
		}
		return "started " + e.Feature + where
	case EventValidationRecorded:
		if v := e.Evidence; v != nil {
			return fmt.Sprintf("%s validation %s (%s, %s): %s", v.Scope, v.Status, v.Source, e.Feature, v.Command)
		}
	case EventReviewRecorded:
		switch {
		case e.Review == nil:
		case e.Review.Final:
			return "final review: " + string(e.Review.Decision)
		default:
			return fmt.Sprintf("review of %s: %s", e.Feature, e.Review.Decision)
		}
	case EventFeatureCompleted:
		if e.Commit != "" {
			return "completed " + e.Feature + " (merged at " + ShortCommit(e.Commit) + ")"
		}
		return "completed " + e.Feature
	case EventFeatureInterrupted:
		if e.Summary != "" {
			return "interrupted " + e.Feature + ": " + e.Summary
		}
		return "interrupted " + e.Feature
	case EventFeatureResumed:
		return "resumed " + e.Feature
	case EventMergeConflict:
		return fmt.Sprintf("merge of %s conflicts on %s", e.Feature, QuotedFiles(e.Files))
	case EventCompletionRejected:
		return fmt.Sprintf("completion of %s rejected: %s", e.Feature, e.Code)
	case EventReplanRequired:
		return "replan required by " + e.Feature
	case EventFeatureBlocked:
		return fmt.Sprintf("%s: %s", e.Feature, e.Outcome)
	case EventSessionCompleted:
		return "session completed"
	case EventSessionBlocked:
		return e.Summary
	case EventFeaturesReset:
		return "reset " + strings.Join(e.FeatureIDs, ", ")
	case EventSessionArchived:
		return "session archived"
	case EventSessionActivated:
		return "session activated"
	case EventNoteAdded:
		return "note: " + FirstLine(e.Text, 120)
	case EventSessionLanded:
		return "landed " + IntegrationBranch(e.Session) + " into " + e.Branch + " at " + ShortCommit(e.Commit)
	}
	return string(e.Type)
}

// ShortCommit is a commit id as people quote it.
func ShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
