package model

import (
	"fmt"
	"slices"
	"strings"
)

// Apply folds one event into the session. It is the only code that changes a
// session, used both when an action is executed and when a log is replayed, so
// the two cannot disagree. An error means the log is corrupt.
func Apply(s *Session, e Event) error {
	if e.Type != EventSessionStarted {
		if s.ID == "" {
			return fmt.Errorf("event %d (%s) before session_started", e.Seq, e.Type)
		}
		if e.Seq != s.Seq+1 {
			return fmt.Errorf("session %s: event %d (%s) follows event %d", s.ID, e.Seq, e.Type, s.Seq)
		}
	}
	// Each group reports whether the type is one of its own; a type no
	// group knows is a corrupt log.
	handled, err := applySessionEvent(s, e)
	if !handled {
		handled, err = applyPlanEvent(s, e)
	}
	if !handled {
		handled, err = applyFeatureEvent(s, e)
	}
	if !handled {
		handled, err = applyEvidenceEvent(s, e)
	}
	if !handled {
		handled, err = applyInterruptEvent(s, e)
	}
	if !handled {
		handled, err = applyLandEvent(s, e) // model/land.go
	}
	if !handled {
		return fmt.Errorf("session %s: event %d has unknown type %q", s.ID, e.Seq, e.Type)
	}
	if err != nil {
		return err
	}
	s.Seq = e.Seq
	s.Timestamps.Updated = e.At
	s.Execution.HistoryTotal++
	s.Execution.History = lastN(append(s.Execution.History, HistoryItem{
		Seq: e.Seq, At: e.At, Actor: e.Actor, Via: e.Via, Type: e.Type, Feature: e.Feature, Summary: Describe(e),
	}), MaxHistory)
	return nil
}

// eventFeature is the plan's feature e names.
func (s *Session) eventFeature(e Event) (*Feature, error) {
	f := s.Plan.Feature(e.Feature)
	if f == nil {
		return nil, fmt.Errorf("session %s: event %d (%s) names unknown feature %q", s.ID, e.Seq, e.Type, e.Feature)
	}
	return f, nil
}

// applySessionEvent folds the events about the session as a whole.
func applySessionEvent(s *Session, e Event) (bool, error) {
	switch e.Type {
	case EventSessionStarted:
		*s = Session{
			ID: e.Session, Goal: e.Goal, Status: StatusPlanning, Approval: ApprovalPending,
			Notes: []Note{}, Artifacts: []Artifact{},
			Execution:  Execution{History: []HistoryItem{}},
			Timestamps: Timestamps{Created: e.At},
		}
	case EventSessionCompleted:
		s.Status = StatusCompleted
		at := e.At
		s.Timestamps.Completed = &at
	case EventSessionBlocked:
		s.Status = StatusBlocked
	case EventSessionArchived:
		s.Archived = true
	case EventSessionActivated:
		s.Archived = false
	case EventNoteAdded:
		s.NotesTotal++
		s.Notes = lastN(append(s.Notes, Note{Seq: e.Seq, At: e.At, Actor: e.Actor, Text: e.Text}), MaxNotes)
	default:
		return false, nil
	}
	return true, nil
}

// applyPlanEvent folds the events that change the plan or its approval.
func applyPlanEvent(s *Session, e Event) (bool, error) {
	switch e.Type {
	case EventPlanApplied:
		if e.Plan == nil {
			return true, fmt.Errorf("session %s: event %d has no plan", s.ID, e.Seq)
		}
		p := normalizePlan(*e.Plan)
		p.reindex()
		s.Plan = &p
		s.Status, s.Approval = StatusPlanning, ApprovalPending
		s.Timestamps.Approved, s.Timestamps.Completed = nil, nil
		s.Execution.ActiveFeature = ""
	case EventPlanSelected:
		if s.Plan == nil {
			return true, fmt.Errorf("session %s: event %d selects features of no plan", s.ID, e.Seq)
		}
		keep := map[string]bool{}
		for _, id := range e.FeatureIDs {
			keep[id] = true
		}
		dropped := map[string]bool{}
		s.Plan.Features = slices.DeleteFunc(s.Plan.Features, func(f Feature) bool {
			dropped[f.ID] = !keep[f.ID]
			return !keep[f.ID]
		})
		s.Plan.reindex()
		s.Execution.forget(dropped)
	case EventPlanApproved:
		if e.Git != nil && s.Git == nil { // the first setup stays: its branch holds the merged work
			// A log from outside (an import) must not name another branch: git work trusts it.
			if err := checkGitSetup(s, e.Git); err != nil {
				return true, fmt.Errorf("session %s: event %d: %v", s.ID, e.Seq, err)
			}
			g := *e.Git
			s.Git = &g
		}
		if err := objectIDs(s, e, e.Tree); err != nil {
			return true, err
		}
		if s.Base == "" {
			s.Base = e.Tree
		}
		s.Approval, s.Status = ApprovalApproved, StatusReady
		if s.Execution.ActiveFeature != "" { // approved again after a replan while others ran on
			s.Status = StatusRunning
		}
		at := e.At
		s.Timestamps.Approved = &at
	case EventFeaturesReset:
		return true, s.resetFeatures(e)
	default:
		return false, nil
	}
	return true, nil
}

// resetFeatures folds features_reset: the features go back to pending with
// their plan fields only.
func (s *Session) resetFeatures(e Event) error {
	reset := map[string]bool{}
	for _, id := range e.FeatureIDs {
		f := s.Plan.Feature(id)
		if f == nil {
			return fmt.Errorf("session %s: event %d resets unknown feature %q", s.ID, e.Seq, id)
		}
		*f = Feature{ID: f.ID, Title: f.Title, Summary: f.Summary, Files: f.Files, Verification: f.Verification,
			DependsOn: f.DependsOn, BlockedBy: f.BlockedBy, Status: FeaturePending}
		reset[id] = true
	}
	x := &s.Execution
	x.forget(reset)
	s.Landed = nil // a reset reopens the session; what lands next is decided again
	if x.ActiveFeature == "" && s.MaxParallel() > 1 {
		s.refreshActive()
	}
	s.Timestamps.Completed = nil
	switch {
	case x.ActiveFeature != "":
		s.Status = StatusRunning
	case s.Approval == ApprovalApproved:
		s.Status = StatusReady
	default:
		s.Status = StatusPlanning
	}
	return nil
}

// applyFeatureEvent folds the events that move one feature through its
// life: started, completed, conflicted, sent back or blocked.
func applyFeatureEvent(s *Session, e Event) (bool, error) {
	switch e.Type {
	case EventFeatureStarted, EventFeatureCompleted, EventMergeConflict, EventReplanRequired, EventFeatureBlocked:
	case EventCompletionRejected:
		return true, nil // only history: a rejected completion changes nothing else
	default:
		return false, nil
	}
	f, err := s.eventFeature(e)
	if err != nil {
		return true, err
	}
	if e.Type != EventMergeConflict { // the feature moves on: its worker is not stuck
		f.Interrupted = nil
	}
	switch e.Type {
	case EventFeatureStarted:
		if err := objectIDs(s, e, e.Tree); err != nil {
			return true, err
		}
		f.Status, f.StartedSeq, f.Outcome, f.OutcomeNote, f.Agent = FeatureInProgress, e.Seq, "", "", e.Agent
		f.Base = e.Tree
		f.Git = nil
		if e.FeatureGit != nil {
			// The names are the model's own; other ones (an imported log) could
			// send a worktree out of the project or drop the person's branch.
			// A log written before feature "lock" had a name git allows holds
			// the old one: replayed, the feature is redone (it never got a
			// worktree) under its new name.
			legacy := f.ID == "lock" && e.FeatureGit.Branch == "flowdeck/"+s.ID+".lock"
			if s.Git == nil || e.FeatureGit.Branch != FeatureBranch(s.ID, f.ID) && !legacy || e.FeatureGit.Worktree != WorktreePath(f.ID) {
				return true, fmt.Errorf("session %s: event %d: feature %s has branch %q and worktree %q, not its own",
					s.ID, e.Seq, f.ID, e.FeatureGit.Branch, e.FeatureGit.Worktree)
			}
			g := *e.FeatureGit
			g.Branch = FeatureBranch(s.ID, f.ID)
			g.MergeCommit, g.MergeBase, g.Conflicts = "", "", nil
			f.Git = &g
		}
		s.Execution.ActiveFeature = f.ID
		s.Status = StatusRunning
	case EventFeatureCompleted:
		// Commits a reset hands to git: an imported log's must be object
		// ids, never a ref or an option.
		if err := objectIDs(s, e, e.Commit, e.Base); err != nil {
			return true, err
		}
		f.Status, f.Outcome, f.OutcomeNote = FeatureCompleted, OutcomeCompleted, e.Summary
		s.Landed = nil // the integration branch holds more than was landed
		if f.Git != nil {
			f.Git.MergeCommit, f.Git.MergeBase, f.Git.Conflicts = e.Commit, e.Base, nil
		}
		s.finish(f.ID, OutcomeCompleted)
	case EventMergeConflict:
		if f.Git == nil {
			return true, fmt.Errorf("session %s: event %d: feature %s has no worktree", s.ID, e.Seq, f.ID)
		}
		f.Git.Conflicts = slices.Clone(e.Files)
	case EventReplanRequired:
		f.Status, f.Outcome, f.OutcomeNote = FeaturePending, OutcomeReplanRequired, e.Summary
		s.finish(f.ID, OutcomeReplanRequired)
		s.Status, s.Approval, s.Timestamps.Approved = StatusPlanning, ApprovalPending, nil
	case EventFeatureBlocked:
		f.Status, f.Outcome, f.OutcomeNote = FeatureBlocked, e.Outcome, e.Summary
		s.finish(f.ID, e.Outcome)
		if s.Execution.ActiveFeature == "" { // with others still active the session runs on
			s.Status = StatusBlocked
		}
	}
	return true, nil
}

// applyEvidenceEvent folds recorded validations and reviews.
func applyEvidenceEvent(s *Session, e Event) (bool, error) {
	switch e.Type {
	case EventValidationRecorded:
		f, err := s.eventFeature(e)
		if err != nil {
			return true, err
		}
		if e.Evidence == nil {
			return true, fmt.Errorf("session %s: event %d has no evidence", s.ID, e.Seq)
		}
		ev := *e.Evidence
		if err := objectIDs(s, e, ev.Tree); err != nil { // an imported log's trees go to git diff
			return true, err
		}
		f.Interrupted = nil
		f.Validations = trimEvidence(append(f.Validations, ev))
		s.Execution.LastValidation = &ev
	case EventReviewRecorded:
		if e.Review == nil {
			return true, fmt.Errorf("session %s: event %d has no review", s.ID, e.Seq)
		}
		r := *e.Review
		if r.Final {
			s.Execution.FinalReviews = lastN(append(s.Execution.FinalReviews, r), MaxEvidencePerItem)
		} else {
			f, err := s.eventFeature(e)
			if err != nil {
				return true, err
			}
			f.Reviews = lastN(append(f.Reviews, r), MaxEvidencePerItem)
			f.Interrupted = nil
		}
		s.Execution.LastReview = &r
	default:
		return false, nil
	}
	return true, nil
}

// forget clears the execution fields that belong to the given features.
func (x *Execution) forget(ids map[string]bool) {
	if ids[x.ActiveFeature] {
		x.ActiveFeature = ""
	}
	if ids[x.LastFeature] {
		x.LastFeature, x.LastOutcome = "", ""
	}
	if x.LastValidation != nil && ids[x.LastValidation.Feature] {
		x.LastValidation = nil
	}
	if x.LastReview != nil && ids[x.LastReview.Feature] {
		x.LastReview = nil
	}
}

// finish records that the active feature id ended with outcome; another
// active one, if any, becomes Execution.ActiveFeature.
func (s *Session) finish(id string, o Outcome) {
	if s.Execution.ActiveFeature == id {
		s.Execution.ActiveFeature = ""
		if s.MaxParallel() > 1 { // a scan only where several can be active
			s.refreshActive()
		}
	}
	s.Execution.LastFeature, s.Execution.LastOutcome = id, o
	if s.Status == StatusRunning && s.Execution.ActiveFeature == "" {
		s.Status = StatusReady
	}
}

// lastN bounds a growing list: once it holds 2n entries it is cut back to the
// newest n. Trimming in batches keeps appends amortized O(1) during a long
// replay; the copy lets the dropped entries be collected.
func lastN[T any](xs []T, n int) []T {
	if len(xs) < 2*n {
		return xs
	}
	return slices.Clone(xs[len(xs)-n:])
}

// trimEvidence keeps the newest MaxEvidencePerItem entries, plus the newest
// broad one when it would fall out, because the final gates need it.
func trimEvidence(xs []Evidence) []Evidence {
	if len(xs) < 2*MaxEvidencePerItem {
		return xs
	}
	kept := xs[len(xs)-MaxEvidencePerItem:]
	for i := len(xs) - MaxEvidencePerItem - 1; i >= 0; i-- {
		if xs[i].Scope == ScopeBroad {
			if !slices.ContainsFunc(kept, func(e Evidence) bool { return e.Scope == ScopeBroad }) {
				return append([]Evidence{xs[i]}, kept...)
			}
			break
		}
	}
	return slices.Clone(kept)
}

// FirstLine cuts s to its first line and at most max runes, marking either
// cut with an ellipsis. It never converts all of s (foreign text can be
// megabytes): the cockpit, the rendered docs and the event lines share it.
func FirstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	for i := range s {
		if max == 0 {
			return s[:i] + "…"
		}
		max--
	}
	return s
}

// objectIDs refuses event e of s when one of ids (empty: none) is not a git
// object id: what an event names for git (a commit, a tree) comes from a
// log that may have been imported, and must never be a ref or an option.
func objectIDs(s *Session, e Event, ids ...string) error {
	for _, id := range ids {
		if id != "" && !isObjectID(id) {
			return fmt.Errorf("session %s: event %d (%s): %q is not a git object id", s.ID, e.Seq, e.Type, id)
		}
	}
	return nil
}
