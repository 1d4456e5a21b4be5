package ops

import (
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/model"
)

// The views below are what results carry instead of the whole session: an
// agent pays for every byte of every result, so an action answers with what
// it touched and flow status with the plan's shape, not its full history.
// The whole session is there on request (--full, full: true).

// SessionSummary is the session as an action's result carries it.
type SessionSummary struct {
	ID            string              `json:"id"`
	Goal          string              `json:"goal"`
	Status        model.SessionStatus `json:"status"`
	Approval      model.Approval      `json:"approval"`
	ActiveFeature string              `json:"active_feature,omitempty"`
	// Seq is the session's last event: what a caller passes as expect_seq
	// to have a later action refused if what it decides changed meanwhile.
	Seq uint64 `json:"seq"`
	// Counts are the features by display state, with "features" (all) and
	// "required" (to complete the session); states with none are left out.
	Counts map[string]int `json:"counts"`
}

// Summarize is s as an action's result carries it; nil for nil.
func Summarize(s *model.Session) *SessionSummary {
	if s == nil {
		return nil
	}
	sum := &SessionSummary{ID: s.ID, Goal: cut(s.Goal), Status: s.Status, Approval: s.Approval,
		ActiveFeature: s.Execution.ActiveFeature, Seq: s.Seq, Counts: map[string]int{"features": 0}}
	if s.Plan != nil {
		sum.Counts["features"] = len(s.Plan.Features)
		sum.Counts["required"] = s.Plan.Required()
		for i := range s.Plan.Features {
			sum.Counts[string(model.StateOf(s, &s.Plan.Features[i]))]++
		}
	}
	return sum
}

// FeatureView is one feature with its latest evidence and review only.
type FeatureView struct {
	ID           string              `json:"id"`
	Title        string              `json:"title"`
	Status       model.FeatureStatus `json:"status"`
	State        model.FeatureState  `json:"state,omitempty"`
	Agent        string              `json:"agent,omitempty"` // who claimed it, while it is active
	DependsOn    []string            `json:"depends_on,omitempty"`
	BlockedBy    []string            `json:"blocked_by,omitempty"`
	Verification []string            `json:"verification,omitempty"`
	Evidence     *EvidenceView       `json:"evidence,omitempty"`
	Review       *ReviewView         `json:"review,omitempty"`
	Outcome      model.Outcome       `json:"outcome,omitempty"`
	OutcomeNote  string              `json:"outcome_note,omitempty"`
	// Git is the feature's branch and worktree (relative to the project
	// root), its merge commit or its merge conflict, in sessions that use
	// worktrees.
	Git *model.FeatureGit `json:"git,omitempty"`
	// Interrupted says when and why its worker stopped, while it reads
	// interrupted (model.RunInterrupt).
	Interrupted *model.Interruption `json:"interrupted,omitempty"`
	// Checks are an active feature's verification commands, each with
	// the state of its evidence (stale: of other code than now).
	Checks []CheckView `json:"checks,omitempty"`
}

// CheckView is one verification command of a feature and its evidence.
type CheckView struct {
	Command string               `json:"command,omitempty"`
	State   model.CheckState     `json:"state"`
	Source  model.EvidenceSource `json:"source,omitempty"`
}

// viewChecks are f's checks on the code at tree ("" unknown).
func viewChecks(f *model.Feature, tree string) []CheckView {
	cs := model.Checks(f, tree)
	out := make([]CheckView, len(cs))
	for i, c := range cs {
		out[i] = CheckView{Command: cut(c.Command), State: c.State}
		if c.Evidence != nil {
			out[i].Source = c.Evidence.Source
		}
	}
	return out
}

// EvidenceView is a validation without its bookkeeping.
type EvidenceView struct {
	Feature string                 `json:"feature,omitempty"`
	Status  model.ValidationStatus `json:"status"`
	Scope   model.Scope            `json:"scope"`
	Source  model.EvidenceSource   `json:"source"`
	Command string                 `json:"command"`
	Summary string                 `json:"summary,omitempty"`
	RunID   string                 `json:"run_id,omitempty"`
	Commit  string                 `json:"commit,omitempty"`
}

// ReviewView is a review decision and its findings.
type ReviewView struct {
	Feature  string               `json:"feature,omitempty"`
	Final    bool                 `json:"final,omitempty"`
	Decision model.ReviewDecision `json:"decision"`
	Actor    string               `json:"actor"`
	Findings []string             `json:"findings,omitempty"`
}

func viewEvidence(e *model.Evidence, withFeature bool) *EvidenceView {
	if e == nil {
		return nil
	}
	v := &EvidenceView{Status: e.Status, Scope: e.Scope, Source: e.Source, Command: cut(e.Command),
		Summary: cut(e.Summary), RunID: e.RunID, Commit: e.Commit}
	if withFeature {
		v.Feature = e.Feature
	}
	return v
}

func viewReview(r *model.Review, withFeature bool) *ReviewView {
	if r == nil {
		return nil
	}
	v := &ReviewView{Final: r.Final, Decision: r.Decision, Actor: r.Actor, Findings: cutList(r.Findings)}
	if withFeature {
		v.Feature = r.Feature
	}
	return v
}

// ViewFeature is feature id of s; nil when s has no such feature.
func ViewFeature(s *model.Session, id string) *FeatureView {
	if s == nil || s.Plan == nil || id == "" {
		return nil
	}
	f := s.Plan.Feature(id)
	if f == nil {
		return nil
	}
	v := &FeatureView{ID: f.ID, Title: cut(f.Title), Status: f.Status, State: model.StateOf(s, f),
		DependsOn: f.DependsOn, BlockedBy: f.BlockedBy, Verification: cutList(f.Verification),
		Evidence: viewEvidence(model.LatestEvidence(f), false), Outcome: f.Outcome, OutcomeNote: cut(f.OutcomeNote)}
	if n := len(f.Reviews); n > 0 {
		v.Review = viewReview(&f.Reviews[n-1], false)
	}
	if f.Status == model.FeatureInProgress {
		v.Agent = f.Agent
		v.Interrupted = f.Interrupted
	}
	v.Git = f.Git
	return v
}

// EventView is an event as a result carries it: without the session id
// (the result names it) and without a plan (flow status shows it).
type EventView struct {
	Seq        uint64          `json:"seq"`
	Type       model.EventType `json:"type"`
	Actor      string          `json:"actor"`
	Via        string          `json:"via,omitempty"` // where the call came from (model.Context.Via)
	Feature    string          `json:"feature,omitempty"`
	Agent      string          `json:"agent,omitempty"`
	FeatureIDs []string        `json:"feature_ids,omitempty"`
	Features   int             `json:"features,omitempty"` // how many a plan_applied event's plan has
	Goal       string          `json:"goal,omitempty"`
	Evidence   *EvidenceView   `json:"evidence,omitempty"`
	Review     *ReviewView     `json:"review,omitempty"`
	Outcome    model.Outcome   `json:"outcome,omitempty"`
	Code       string          `json:"code,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Text       string          `json:"text,omitempty"`
	Session    string          `json:"session,omitempty"` // only when it is not the result's session
}

// ViewEvents are events as a result carries them; session is the result's
// session id (events of another session name theirs).
func ViewEvents(events []model.Event, session string) []EventView {
	if len(events) == 0 {
		return nil
	}
	out := make([]EventView, len(events))
	for i, e := range events {
		v := EventView{Seq: e.Seq, Type: e.Type, Actor: e.Actor, Via: e.Via, Feature: e.Feature, Agent: e.Agent, FeatureIDs: e.FeatureIDs,
			Goal: cut(e.Goal), Evidence: viewEvidence(e.Evidence, false), Review: viewReview(e.Review, false),
			Outcome: e.Outcome, Code: e.Code, Summary: cut(e.Summary), Text: cut(e.Text)}
		if e.Plan != nil {
			v.Features = len(e.Plan.Features)
		}
		if e.Session != session {
			v.Session = e.Session
		}
		out[i] = v
	}
	return out
}

// touchedFeature is the feature the events are about: the last one named.
func touchedFeature(events []model.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Feature != "" {
			return events[i].Feature
		}
	}
	return ""
}

// maxText bounds each agent-written text in a view; the whole text is in
// flow status --full and the docs.
const maxText = 300

func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// maxListed bounds lists of agent-written texts (findings, commands).
const maxListed = 5

func cutList(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(xs), maxListed+1))
	for i, x := range xs {
		if i == maxListed {
			out = append(out, "…")
			break
		}
		out = append(out, cut(x))
	}
	return out
}

// StatusView is the session as flow status shows it: the same shape as the
// stored session (so that flows read .plan.features[].status or
// .execution.active_feature either way), each feature with its latest
// evidence and review only, and the recent history and notes.
type StatusView struct {
	ID         string              `json:"id"`
	Goal       string              `json:"goal"`
	Status     model.SessionStatus `json:"status"`
	Approval   model.Approval      `json:"approval"`
	Plan       *PlanView           `json:"plan,omitempty"`
	Execution  ExecutionView       `json:"execution"`
	Notes      []model.Note        `json:"notes"`
	NotesTotal int                 `json:"notes_total"`
	Counts     map[string]int      `json:"counts"`
	Timestamps model.Timestamps    `json:"timestamps"`
	Seq        uint64              `json:"seq"`
	// Git is the session's integration branch and base, when its features
	// run in worktrees; Landed where flow land merged it, once it did.
	Git    *model.GitSetup `json:"git,omitempty"`
	Landed *model.Landing  `json:"landed,omitempty"`
}

// PlanView is the plan with its features as FeatureViews.
type PlanView struct {
	Summary      string           `json:"summary"`
	Requirements []string         `json:"requirements,omitempty"`
	Decisions    []string         `json:"decisions,omitempty"`
	Features     []FeatureView    `json:"features"`
	Completion   model.Completion `json:"completion,omitempty"`
}

// ExecutionView is the running state with the recent history only.
type ExecutionView struct {
	ActiveFeature  string              `json:"active_feature,omitempty"`
	LastFeature    string              `json:"last_feature,omitempty"`
	LastOutcome    model.Outcome       `json:"last_outcome,omitempty"`
	LastValidation *EvidenceView       `json:"last_validation,omitempty"`
	LastReview     *ReviewView         `json:"last_review,omitempty"`
	History        []model.HistoryItem `json:"history"`
	HistoryTotal   int                 `json:"history_total"`
}

// How much of the history and notes flow status shows (flow history and
// --full show all).
const (
	statusHistory = 8
	statusNotes   = 3
)

// ViewStatus is s as flow status shows it; nil for nil.
func ViewStatus(s *model.Session) *StatusView { return viewStatusAt(s, nil) }

// viewStatusAt is ViewStatus with the trees the active features' code is
// at now (see render.StatusAt).
func viewStatusAt(s *model.Session, trees map[string]string) *StatusView {
	if s == nil {
		return nil
	}
	v := &StatusView{ID: s.ID, Goal: cut(s.Goal), Status: s.Status, Approval: s.Approval,
		NotesTotal: s.NotesTotal, Counts: Summarize(s).Counts, Timestamps: s.Timestamps, Seq: s.Seq, Git: s.Git, Landed: s.Landed}
	if s.Plan != nil {
		p := &PlanView{Summary: cut(s.Plan.Summary), Requirements: cutList(s.Plan.Requirements),
			Decisions: cutList(s.Plan.Decisions), Completion: s.Plan.Completion, Features: []FeatureView{}}
		for i, f := range s.Plan.Features {
			fv := statusFeature(s, f.ID)
			if f.Status == model.FeatureInProgress {
				fv.Checks = viewChecks(&s.Plan.Features[i], trees[f.ID])
			}
			p.Features = append(p.Features, fv)
		}
		v.Plan = p
	}
	x := s.Execution
	v.Execution = ExecutionView{ActiveFeature: x.ActiveFeature, LastFeature: x.LastFeature, LastOutcome: x.LastOutcome,
		LastValidation: viewEvidence(x.LastValidation, true), LastReview: viewReview(x.LastReview, true),
		History: orEmpty(tail(x.History, statusHistory)), HistoryTotal: x.HistoryTotal}
	for i := range v.Execution.History {
		v.Execution.History[i].Summary = cut(v.Execution.History[i].Summary)
	}
	v.Notes = orEmpty(tail(s.Notes, statusNotes))
	for i := range v.Notes {
		v.Notes[i].Text = cut(v.Notes[i].Text)
	}
	return v
}

// statusFeature is a feature as one line of flow status: the active one in
// full; a completed one without its evidence and review (completion needed
// them passed and approved); the others with the latest verdicts only.
func statusFeature(s *model.Session, id string) FeatureView {
	v := *ViewFeature(s, id)
	if v.Status == model.FeatureInProgress { // every active feature in full
		return v
	}
	v.Verification = nil
	if string(v.State) == string(v.Status) {
		v.State = ""
	}
	if v.Status == model.FeatureCompleted {
		v.Evidence, v.Review, v.Outcome, v.OutcomeNote = nil, nil, "", ""
		return v
	}
	if e := v.Evidence; e != nil {
		v.Evidence = &EvidenceView{Status: e.Status, Scope: e.Scope, Source: e.Source, RunID: e.RunID}
	}
	if r := v.Review; r != nil {
		v.Review = &ReviewView{Decision: r.Decision, Actor: r.Actor}
	}
	return v
}

// tail is a copy of the last n of xs.
func tail[T any](xs []T, n int) []T {
	if len(xs) > n {
		xs = xs[len(xs)-n:]
	}
	return append([]T(nil), xs...)
}
