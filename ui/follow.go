package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The selection follows the agents (the active feature, else what waits),
// but never moves under the person's fingers: a selection that moves just
// before or after a key press sends the keys to another feature.
const (
	// followQuiet is how long after a key press the cockpit leaves the
	// selection where it is; it catches up at the next poll after that.
	followQuiet = 2 * time.Second
	// followGrace: a key that arrives this soon after the cockpit moved the
	// selection by itself was aimed at where it was before; the move is
	// undone first.
	followGrace = time.Second
)

// follow is what the cockpit remembers to follow politely, on its own
// clock (m.now), so tests drive it with messages.
type follow struct {
	keyAt   time.Time // the last key press
	movedAt time.Time // when the cockpit last moved the selection itself
	from    string    // the selection before that move
}

// keyPressed is called first for every key press: a move of the selection
// the person can hardly have seen is undone, and following pauses.
func (m *Model) keyPressed() tea.Cmd {
	now := m.now()
	m.follow.keyAt = now
	from := m.follow.from
	m.follow.from = ""
	if !m.autoSel || from == "" || from == m.sel || now.Sub(m.follow.movedAt) >= followGrace ||
		m.sess == nil || m.sess.Plan == nil || m.sess.Plan.Feature(from) == nil {
		return nil
	}
	m.sel = from
	m.syncSelection()
	if m.doc == docFeature {
		return m.refreshDetail()
	}
	return nil
}

// autoSelect is the selection the cockpit keeps: the default one while it
// follows and no key was pressed a moment ago; else the person's, unless
// their feature is gone. It reports whether the selection moved.
func (m *Model) autoSelect() bool {
	s := m.sess
	want := m.sel
	switch {
	case s == nil || s.Plan == nil || s.Plan.Feature(m.sel) == nil:
		want = defaultSelection(s)
	case m.autoSel && m.now().Sub(m.follow.keyAt) >= followQuiet:
		want = defaultSelection(s)
	}
	if want == m.sel {
		return false
	}
	if m.sel != "" {
		m.follow.movedAt, m.follow.from = m.now(), m.sel
	}
	m.sel = want
	return true
}

// catchUp moves a following selection that waited out a key press (at a
// poll tick, when no load would do it).
func (m *Model) catchUp() tea.Cmd {
	if !m.autoSel || !m.autoSelect() {
		return nil
	}
	m.syncSelection()
	if m.doc == docFeature {
		return m.refreshDetail()
	}
	return nil
}
