// Package scroll is the cursor-and-window arithmetic every list pane shares:
// a cursor over N rows and the first visible row of an H-row window, kept so
// the cursor is always on screen.
package scroll

// State is a cursor over N rows shown H at a time from Offset.
type State struct {
	Cursor, Offset, N, H int
}

// SetLen changes the number of rows and clamps.
func (s *State) SetLen(n int) { s.N = n; s.clamp() }

// SetHeight changes the window height and clamps.
func (s *State) SetHeight(h int) { s.H = h; s.clamp() }

// Move moves the cursor by d rows.
func (s *State) Move(d int) { s.Cursor += d; s.clamp() }

// Page moves the cursor by half a window, like ctrl+d/ctrl+u in less.
func (s *State) Page(dir int) {
	step := max(1, s.H/2)
	s.Cursor += dir * step
	s.Offset += dir * step
	s.clamp()
}

// Top and Bottom jump to the ends.
func (s *State) Top()    { s.Cursor = 0; s.clamp() }
func (s *State) Bottom() { s.Cursor = s.N - 1; s.clamp() }

// Set puts the cursor on row i.
func (s *State) Set(i int) { s.Cursor = i; s.clamp() }

// Scroll moves the window (mouse wheel) and drags the cursor along when it
// would leave the screen.
func (s *State) Scroll(d int) {
	s.Offset += d
	if s.Offset > s.N-s.H {
		s.Offset = s.N - s.H
	}
	if s.Offset < 0 {
		s.Offset = 0
	}
	if s.Cursor < s.Offset {
		s.Cursor = s.Offset
	}
	if s.H > 0 && s.Cursor >= s.Offset+s.H {
		s.Cursor = s.Offset + s.H - 1
	}
	s.clamp()
}

func (s *State) clamp() {
	if s.Cursor >= s.N {
		s.Cursor = s.N - 1
	}
	if s.Cursor < 0 {
		s.Cursor = 0
	}
	if s.H <= 0 {
		s.Offset = s.Cursor
		return
	}
	if s.Cursor < s.Offset {
		s.Offset = s.Cursor
	}
	if s.Cursor >= s.Offset+s.H {
		s.Offset = s.Cursor - s.H + 1
	}
	if s.Offset > s.N-s.H {
		s.Offset = s.N - s.H
	}
	if s.Offset < 0 {
		s.Offset = 0
	}
}

// Window returns the visible row range [from, to).
func (s State) Window() (from, to int) {
	return s.Offset, min(s.N, s.Offset+max(0, s.H))
}
