package model

import "time"

// Interrupt and resume: a worker agent that crashed or gave up leaves its
// feature claimed (same agent, worktree, slot) but marked interrupted with
// the reason, so the person sees it and decides (retry, reassign, reset).
// The mark is part of the log, so replay reproduces it; it clears when the
// feature moves on (evidence, a review, completion, a reset, a new claim) or
// on an explicit resume.

type (
	// RunInterrupt marks the active Feature interrupted; Summary says why.
	RunInterrupt struct{ Feature, Summary string }
	// RunResume clears the interrupted mark of the active Feature.
	RunResume struct{ Feature string }
)

func (RunInterrupt) Name() string { return "run_interrupt" }
func (RunResume) Name() string    { return "run_resume" }

func (a RunInterrupt) decide(s *Session, b *builder) error {
	f, err := requireActive(s, a.Feature)
	if err != nil {
		return err
	}
	b.emit(Event{Type: EventFeatureInterrupted, Feature: f.ID, Agent: f.Agent, Summary: a.Summary})
	return nil
}

func (a RunResume) decide(s *Session, b *builder) error {
	f, err := requireActive(s, a.Feature)
	if err != nil {
		return err
	}
	if !f.IsInterrupted() {
		return refuse(CodeFeatureNotInterrupted, string(s.Status), "an interrupted feature",
			"Only an interrupted feature is resumed; this one is at work.", nextForActive(s, f.ID),
			"feature %s is not interrupted", f.ID)
	}
	b.emit(Event{Type: EventFeatureResumed, Feature: f.ID, Agent: f.Agent})
	return nil
}

// IsInterrupted reports whether f is in progress and marked interrupted.
func (f *Feature) IsInterrupted() bool {
	return f.Status == FeatureInProgress && f.Interrupted != nil
}

// applyInterruptEvent folds feature_interrupted and feature_resumed.
func applyInterruptEvent(s *Session, e Event) (bool, error) {
	switch e.Type {
	case EventFeatureInterrupted, EventFeatureResumed:
	default:
		return false, nil
	}
	f, err := s.eventFeature(e)
	if err != nil {
		return true, err
	}
	f.Interrupted = nil
	if e.Type == EventFeatureInterrupted {
		f.Interrupted = &Interruption{Seq: e.Seq, At: e.At, Actor: e.Actor, Summary: e.Summary}
	}
	return true, nil
}

// Interruption is why and when a feature was interrupted.
type Interruption struct {
	Seq     uint64    `json:"seq"`
	At      time.Time `json:"at"`
	Actor   string    `json:"actor"`
	Summary string    `json:"summary,omitempty"`
}
