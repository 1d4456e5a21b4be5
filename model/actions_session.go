package model

import "strings"

func (a ResetFeature) decide(s *Session, b *builder) error {
	if err := requireSession(s); err != nil {
		return err
	}
	if _, err := requireFeature(s, a.Feature); err != nil {
		return err
	}
	ids := append([]string{a.Feature}, Downstream(s.Plan.Features, a.Feature)...)
	b.emit(Event{Type: EventFeaturesReset, Feature: a.Feature, FeatureIDs: ids})
	return nil
}

func (a ResetSession) decide(s *Session, b *builder) error {
	if s == nil {
		return nil // nothing to reset is not an error (Flow's habit)
	}
	b.emit(Event{Type: EventSessionArchived, Summary: a.Reason})
	return nil
}

func (a ActivateSession) decide(s *Session, b *builder) error {
	if !ValidSessionID(a.ID) {
		return refuse(CodeInvalidSessionID, "", "a valid session id", "Session ids are kebab-case; flowdeck flow history lists them.",
			"flowdeck flow history", "invalid session id %s", quoteID(a.ID))
	}
	if s == nil || s.ID != a.ID {
		return refuse(CodeUnknownSession, "", "a stored session", "flowdeck flow history lists the stored sessions.",
			"flowdeck flow history", "no session %s", a.ID)
	}
	b.emit(Event{Type: EventSessionActivated})
	return nil
}

func (a AddNote) decide(s *Session, b *builder) error {
	if err := requireSession(s); err != nil {
		return err
	}
	text := strings.TrimSpace(a.Text)
	if text == "" {
		return invalidArg("text", "the note is empty")
	}
	b.emit(Event{Type: EventNoteAdded, Text: text})
	return nil
}
