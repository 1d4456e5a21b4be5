package model

// Replay builds a session from its full event log: the fold the tests of
// package model_test check a session against. (The store replays through
// Apply itself, event by event.)
func Replay(events []Event) (*Session, error) {
	s := &Session{}
	for _, e := range events {
		if err := Apply(s, e); err != nil {
			return nil, err
		}
	}
	return s, nil
}
