// Package model holds flowdeck's domain: sessions, plans, features, evidence,
// reviews, flow runs and their decisions, command run records, and the pure
// transitions between them. It does no I/O.
package model

import "time"

// SessionStatus is the lifecycle stage of a planning session.
type SessionStatus string

const (
	StatusPlanning  SessionStatus = "planning"
	StatusReady     SessionStatus = "ready"
	StatusRunning   SessionStatus = "running"
	StatusBlocked   SessionStatus = "blocked"
	StatusCompleted SessionStatus = "completed"
)

// Approval says whether the person approved the plan.
type Approval string

const (
	ApprovalPending  Approval = "pending"
	ApprovalApproved Approval = "approved"
)

// FeatureStatus is the lifecycle stage of one feature.
type FeatureStatus string

const (
	FeaturePending    FeatureStatus = "pending"
	FeatureInProgress FeatureStatus = "in_progress"
	FeatureCompleted  FeatureStatus = "completed"
	FeatureBlocked    FeatureStatus = "blocked"
)

// Outcome is what a worker reports when it finishes a feature.
type Outcome string

const (
	OutcomeCompleted      Outcome = "completed"
	OutcomeReplanRequired Outcome = "replan_required"
	OutcomeBlocked        Outcome = "blocked"
	OutcomeNeedsInput     Outcome = "needs_input"
)

// ValidationStatus is the result of a validation run.
type ValidationStatus string

const (
	ValidationPassed  ValidationStatus = "passed"
	ValidationFailed  ValidationStatus = "failed"
	ValidationPartial ValidationStatus = "partial"
)

// Scope says whether validation covered the feature or the whole project.
type Scope string

const (
	ScopeTargeted Scope = "targeted"
	ScopeBroad    Scope = "broad"
)

// EvidenceSource says who produced validation evidence: an agent's report, or
// flowdeck itself when it ran the command.
type EvidenceSource string

const (
	SourceReported EvidenceSource = "reported"
	SourceObserved EvidenceSource = "observed"
)

// ReviewDecision is a reviewer's verdict.
type ReviewDecision string

const (
	ReviewApproved ReviewDecision = "approved"
	ReviewNeedsFix ReviewDecision = "needs_fix"
	ReviewBlocked  ReviewDecision = "blocked"
)

// Caps on what the materialized session keeps, so that loading it stays cheap
// however long the event log grows; the event log keeps everything. A list is
// cut back to its newest N entries when it reaches 2N.
const (
	MaxHistory         = 200
	MaxNotes           = 100
	MaxEvidencePerItem = 20
)

// Session is the materialized state of one planning session.
type Session struct {
	ID         string        `json:"id"`
	Goal       string        `json:"goal"`
	Status     SessionStatus `json:"status"`
	Approval   Approval      `json:"approval"`
	Plan       *Plan         `json:"plan,omitempty"`
	Execution  Execution     `json:"execution"`
	Notes      []Note        `json:"notes"`
	NotesTotal int           `json:"notes_total"`
	Artifacts  []Artifact    `json:"artifacts"`
	Timestamps Timestamps    `json:"timestamps"`
	Archived   bool          `json:"archived"`
	// Git is set when the session's features run in git worktrees.
	Git *GitSetup `json:"git,omitempty"`
	// Base is the git tree the code was at when the plan was first
	// approved: the session's whole change starts there.
	Base string `json:"base,omitempty"`
	// Landed is the landing of the integration branch on the person's
	// branch (flow land) since the branch last moved; nil until then.
	Landed *Landing `json:"landed,omitempty"`
	// Seq is the sequence number of the last event applied.
	Seq uint64 `json:"seq"`
}

// Timestamps records when the session reached each stage.
type Timestamps struct {
	Created   time.Time  `json:"created"`
	Updated   time.Time  `json:"updated"`
	Approved  *time.Time `json:"approved,omitempty"`
	Completed *time.Time `json:"completed,omitempty"`
}

// Execution is the running state of a session.
type Execution struct {
	ActiveFeature  string        `json:"active_feature,omitempty"`
	LastFeature    string        `json:"last_feature,omitempty"`
	LastOutcome    Outcome       `json:"last_outcome,omitempty"`
	LastValidation *Evidence     `json:"last_validation,omitempty"`
	LastReview     *Review       `json:"last_review,omitempty"`
	FinalReviews   []Review      `json:"final_reviews,omitempty"`
	History        []HistoryItem `json:"history"`
	HistoryTotal   int           `json:"history_total"`
}

// HistoryItem is one line of a session's history: an action and what came of it.
type HistoryItem struct {
	Seq     uint64    `json:"seq"`
	At      time.Time `json:"at"`
	Actor   string    `json:"actor"`
	Via     string    `json:"via,omitempty"` // the event's Via
	Type    EventType `json:"type"`
	Feature string    `json:"feature,omitempty"`
	Summary string    `json:"summary"`
}

// Note is free text attached to a session.
type Note struct {
	Seq   uint64    `json:"seq"`
	At    time.Time `json:"at"`
	Actor string    `json:"actor"`
	Text  string    `json:"text"`
}

// Artifact is a file or URL the session produced.
type Artifact struct {
	Path        string `json:"path"`
	Description string `json:"description,omitempty"`
}

// Plan is the set of features a session will deliver.
type Plan struct {
	Summary      string     `json:"summary"`
	Overview     string     `json:"overview,omitempty"`
	Requirements []string   `json:"requirements,omitempty"`
	Decisions    []string   `json:"decisions,omitempty"`
	Features     []Feature  `json:"features"`
	Completion   Completion `json:"completion,omitempty"`
	// MaxParallel is how many features may be active at once; 0 and 1 keep
	// Flow's one-active-feature rule (see Session.MaxParallel).
	MaxParallel int `json:"max_parallel,omitempty"`
	// Worktrees runs each active feature in its own git worktree; unset,
	// it is on in a git repository when MaxParallel > 1 (WantsWorktrees).
	Worktrees *bool `json:"worktrees,omitempty"`

	// pos maps a feature id to its index in Features so that Feature is
	// O(1) on large plans. It is built when a plan enters a session (Apply,
	// decoding) and never written afterwards, so readers on several
	// goroutines share it safely; Feature checks every hit and falls back to
	// a scan, so a stale or missing index is only slower, never wrong.
	pos map[string]int
}

// Completion says how many features must complete for the session to complete.
// Zero means all of them.
type Completion struct {
	MinCompletedFeatures int `json:"min_completed_features,omitempty"`
}

// Feature is one unit of work in a plan.
type Feature struct {
	ID           string        `json:"id"`
	Title        string        `json:"title"`
	Summary      string        `json:"summary,omitempty"`
	Files        []string      `json:"files,omitempty"`
	Verification []string      `json:"verification,omitempty"`
	DependsOn    []string      `json:"depends_on,omitempty"`
	BlockedBy    []string      `json:"blocked_by,omitempty"`
	Status       FeatureStatus `json:"status"`
	// StartedSeq is the sequence of the event that last started this feature;
	// only evidence and reviews after it count towards completing it.
	StartedSeq uint64 `json:"started_seq,omitempty"`
	// Agent is who claimed the feature when it last started (run start
	// --agent); empty when nobody was named.
	Agent       string     `json:"agent,omitempty"`
	Validations []Evidence `json:"validations,omitempty"`
	Reviews     []Review   `json:"reviews,omitempty"`
	Outcome     Outcome    `json:"outcome,omitempty"`
	OutcomeNote string     `json:"outcome_note,omitempty"`
	// Git is the feature's branch and worktree, when the session uses them.
	Git *FeatureGit `json:"git,omitempty"`
	// Base is the git tree the code was at when the feature last started:
	// its diff is Base to the tree its evidence ran against.
	Base string `json:"base,omitempty"`
	// Interrupted is set while the in-progress feature's worker crashed or
	// gave up and nobody has moved the feature on (see RunInterrupt).
	Interrupted *Interruption `json:"interrupted,omitempty"`
}

// Evidence is the record of one validation run.
type Evidence struct {
	Seq     uint64           `json:"seq"`
	At      time.Time        `json:"at"`
	Actor   string           `json:"actor"`
	Feature string           `json:"feature"`
	Status  ValidationStatus `json:"status"`
	Scope   Scope            `json:"scope"`
	Command string           `json:"command"`
	Summary string           `json:"summary,omitempty"`
	Source  EvidenceSource   `json:"source"`
	RunID   string           `json:"run_id,omitempty"`
	// Commit is the git commit the command ran against (a worktree's HEAD).
	Commit string `json:"commit,omitempty"`
	// Tree is the git tree the code was at: what an observed run ran
	// against, or the code when an agent reported (see Checks).
	Tree string `json:"tree,omitempty"`
}

// Review is one reviewer decision, for a feature or (Final) for the session.
type Review struct {
	Seq      uint64         `json:"seq"`
	At       time.Time      `json:"at"`
	Actor    string         `json:"actor"`
	Feature  string         `json:"feature,omitempty"`
	Final    bool           `json:"final,omitempty"`
	Decision ReviewDecision `json:"decision"`
	Findings []string       `json:"findings,omitempty"`
}

// Index makes the plan look features up in O(1). Sessions built by Apply
// are indexed already; a caller that decodes a session (the store) calls it.
// Without it Feature is a scan: slower, never wrong. (Not an UnmarshalJSON:
// encoding/json would then scan every stored session twice.)
func (s *Session) Index() {
	if s != nil {
		s.Plan.reindex()
	}
}
