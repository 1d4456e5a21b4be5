// Package diffview shows a parsed git diff: a list of the changed files
// with their counts, and the diff itself (every file, or one), with line
// numbers, coloured changes and syntax highlighting of the code.
//
// It is a pane like the others: the root tells it what to show and how to
// move, View returns the visible lines. Everything in a diff is foreign
// text: paths and lines pass termtext before they are drawn. Highlighting
// is lazy and bounded (highlight.go): opening a 20,000-line diff costs its
// parse, and a frame costs the lines it shows.
package diffview

import (
	"sort"
	"strconv"

	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/scroll"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Mode is what the view shows.
type Mode uint8

const (
	ModeList Mode = iota // the changed files, one a row
	ModeAll              // every file's diff, one after another
	ModeFile             // one file's diff
)

// Model is the diff viewer.
type Model struct {
	th   *styles.Styles
	d    *Diff
	mode Mode
	sel  scroll.State // the file list; its cursor is the selected file
	file int          // the file ModeFile shows
	top  int          // the first row shown in the diff modes
	x    int          // cells the code is scrolled right
	w, h int
	// status draws the last row as a status line; off, Footer carries the
	// position for a frame's edge instead.
	status bool

	// Set with the diff:
	starts []int    // the row of each file's header in ModeAll, and the total
	names  []string // each file's path, sanitised ("old → new" for a rename)
	counts []string // each file's "+N -M", plain
	numW   int      // digits of the largest line number
	countW int

	hl highlighter
}

// New returns an empty viewer that draws with th.
func New(th *styles.Styles) *Model {
	m := &Model{status: true, d: &Diff{}, starts: []int{0}, hl: highlighter{frameTime: frameTime}}
	m.SetStyles(th)
	m.SetDiff(nil)
	return m
}

// SetStyles changes the styles the viewer draws with.
func (m *Model) SetStyles(th *styles.Styles) {
	m.th = th
	m.hl.setStyles(th)
}

// SetStatusLine turns the status line (the last row of View) on or off.
func (m *Model) SetStatusLine(on bool) { m.status = on; m.clamp() }

// SetDiff shows d (nil: nothing). A new diff of the same change (the
// cockpit reloads it) keeps the view: when the selected file is still in
// it, the mode and the place in that file stay; otherwise the view starts
// at the top of the file list.
func (m *Model) SetDiff(d *Diff) {
	if d == nil {
		d = &Diff{}
	}
	keep, mode, into := "", m.mode, 0
	if i := m.Selected(); i >= 0 {
		keep = m.d.Files[i].Path()
		if mode == ModeAll {
			into = m.top - m.starts[i]
		} else {
			into = m.top
		}
	}
	m.d, m.mode, m.file, m.top = d, ModeList, 0, 0
	n := len(d.Files)
	m.starts = make([]int, n+1)
	m.names, m.counts = make([]string, n), make([]string, n)
	m.countW, m.numW = 0, 3
	maxNo := int32(0)
	found := -1
	for i := range d.Files {
		f := &d.Files[i]
		m.starts[i+1] = m.starts[i] + 1 + max(1, len(f.Lines))
		m.names[i] = cleanPath(f.Path())
		if f.Status == Renamed || f.Status == Copied {
			m.names[i] = cleanPath(f.OldPath) + " → " + m.names[i]
		}
		m.counts[i] = counts(f)
		m.countW = max(m.countW, len(m.counts[i]))
		for _, l := range f.Lines {
			maxNo = max(maxNo, l.Old, l.New)
		}
		if found < 0 && keep != "" && f.Path() == keep {
			found = i
		}
	}
	m.numW = max(m.numW, len(strconv.Itoa(int(maxNo))))
	m.sel = scroll.State{N: n}
	m.hl.setDiff(n)
	if found < 0 {
		m.x = 0
	} else {
		m.sel.Set(found)
		switch m.mode, m.file = mode, found; mode {
		case ModeAll:
			m.top = m.starts[found] + into
		case ModeFile:
			m.top = into
		}
	}
	m.clamp()
}

// Diff is the diff shown.
func (m *Model) Diff() *Diff { return m.d }

func counts(f *File) string {
	if f.Binary {
		return "bin"
	}
	return "+" + strconv.Itoa(f.Added) + " -" + strconv.Itoa(f.Removed)
}

// cleanPath makes a path from the diff one safe row.
func cleanPath(p string) string {
	return settle(layout.Flat(termtext.With(p, termtext.Options{OneLine: true, Visible: true})))
}

// SetSize sets the area View fills.
func (m *Model) SetSize(w, h int) { m.w, m.h = max(0, w), max(0, h); m.clamp() }

// Mode is what the viewer shows.
func (m *Model) Mode() Mode { return m.mode }

// bodyH is the rows left for content.
func (m *Model) bodyH() int {
	if m.status && m.h > 1 {
		return m.h - 1
	}
	return m.h
}

// rows is how many rows the diff modes have, and the first one's row in
// ModeAll's numbering.
func (m *Model) rows() (n, base int) {
	if m.mode == ModeFile && m.file < len(m.d.Files) {
		return m.starts[m.file+1] - m.starts[m.file], m.starts[m.file]
	}
	return m.starts[len(m.d.Files)], 0
}

// maxTop lets ModeAll scroll the last file's header to the top, so that
// NextFile always brings the file it names to the top.
func (m *Model) maxTop() int {
	n, _ := m.rows()
	t := n - m.bodyH()
	if m.mode == ModeAll && len(m.d.Files) > 0 {
		t = max(t, m.starts[len(m.d.Files)-1])
	}
	return max(0, t)
}

func (m *Model) clamp() {
	m.sel.SetHeight(max(0, m.bodyH()-1)) // under the totals row
	m.top = max(0, min(m.top, m.maxTop()))
	m.x = max(0, min(m.x, maxLineBytes))
}

// Move moves the selection (file list) or scrolls (diff) by d rows.
func (m *Model) Move(d int) {
	if m.mode == ModeList {
		m.sel.Move(d)
		return
	}
	m.top += d
	m.clamp()
}

// Page moves half a screen, like the cockpit's other panes (ctrl+d/u).
func (m *Model) Page(dir int) { m.Move(dir * max(1, m.bodyH()/2)) }

// FullPage moves a whole screen (pgdn/pgup, space).
func (m *Model) FullPage(dir int) {
	h := m.bodyH()
	if m.mode == ModeList {
		h = m.sel.H
	}
	m.Move(dir * max(1, h))
}

// Scroll is the mouse wheel.
func (m *Model) Scroll(d int) { m.Move(d) }

// Top goes to the first file or row.
func (m *Model) Top() {
	if m.mode == ModeList {
		m.sel.Top()
		return
	}
	m.top = 0
}

// Bottom goes to the last file, or shows the last screenful.
func (m *Model) Bottom() {
	if m.mode == ModeList {
		m.sel.Bottom()
		return
	}
	n, _ := m.rows()
	m.top = max(0, n-m.bodyH())
}

// ScrollX scrolls the code d cells right (left when negative); headers
// and line numbers stay.
func (m *Model) ScrollX(d int) { m.x += d; m.clamp() }

// Selected is the index of the selected file: the list's selection, the
// file ModeFile shows, or in ModeAll the file at the top of the screen.
// It is -1 when the diff has no files.
func (m *Model) Selected() int {
	if len(m.d.Files) == 0 {
		return -1
	}
	switch m.mode {
	case ModeFile:
		return m.file
	case ModeAll:
		return m.fileAt(m.top)
	}
	return m.sel.Cursor
}

// SelectedFile is the selected file, nil when there is none.
func (m *Model) SelectedFile() *File {
	if i := m.Selected(); i >= 0 {
		return &m.d.Files[i]
	}
	return nil
}

// fileAt is the file that row r (ModeAll numbering) belongs to.
func (m *Model) fileAt(r int) int {
	n := len(m.d.Files)
	return min(n-1, sort.Search(n, func(i int) bool { return m.starts[i+1] > r }))
}

// OpenSelected shows the selected file's diff alone, from its top, or from
// the row on screen when it comes from ModeAll.
func (m *Model) OpenSelected() {
	i := m.Selected()
	if i < 0 || m.mode == ModeFile {
		return
	}
	top := 0
	if m.mode == ModeAll {
		top = m.top - m.starts[i]
	}
	m.mode, m.file, m.top = ModeFile, i, top
	m.clamp()
}

// ShowAll shows every file's diff, from the selected file's header.
func (m *Model) ShowAll() {
	i := m.Selected()
	m.mode, m.top = ModeAll, 0
	if i >= 0 {
		m.top = m.starts[i]
	}
	m.clamp()
}

// Back returns from a diff to the file list, with the file that was shown
// selected; it reports false in the list, where there is nothing to go back
// to (the caller closes the viewer).
func (m *Model) Back() bool {
	if m.mode == ModeList {
		return false
	}
	if i := m.Selected(); i >= 0 {
		m.sel.Set(i)
	}
	m.mode = ModeList
	m.clamp()
	return true
}

// NextFile and PrevFile go to the next or previous file: the selection in
// the list, the file shown in ModeFile, its header at the top in ModeAll
// (PrevFile first goes back to the top of the current file).
func (m *Model) NextFile() { m.jump(1) }
func (m *Model) PrevFile() { m.jump(-1) }

func (m *Model) jump(dir int) {
	n := len(m.d.Files)
	if n == 0 {
		return
	}
	switch m.mode {
	case ModeList:
		m.sel.Move(dir)
	case ModeFile:
		m.file = max(0, min(n-1, m.file+dir))
		m.top = 0
	case ModeAll:
		i := m.fileAt(m.top)
		if dir < 0 && m.top > m.starts[i] {
			dir = 0
		}
		m.top = m.starts[max(0, min(n-1, i+dir))]
	}
	m.clamp()
}

// FirstChangedLine is where to open the selected file in an editor: its
// path in the new tree (unsanitised, as the diff names it: the caller must
// check it lies in the work tree) and the line of its first change (an
// addition, or where the first removal was). path is "" for a deleted file
// or none; line is 0 when the file has no changed line (binary, a rename or
// mode change only).
func (m *Model) FirstChangedLine() (path string, line int) {
	f := m.SelectedFile()
	if f == nil || f.Status == Deleted {
		return "", 0
	}
	for _, l := range f.Lines {
		if l.Kind == Add || l.Kind == Del {
			return f.NewPath, max(1, int(l.New))
		}
	}
	return f.NewPath, 0
}
