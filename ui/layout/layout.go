// Package layout places the panes on the screen and draws their frames. It
// knows geometry only: which pane goes where for a terminal size, and how a
// titled box around some lines looks.
package layout

import (
	"sort"
	"strings"

	"github.com/flowdeck/flowdeck/ui/styles"
)

// Pane identifies one of the cockpit's panes; the numbers are the 1–8 keys.
type Pane int

// The panes, in tab order.
const (
	Features Pane = iota
	DAG
	Detail
	Runs
	Output
	Recall
	Flow
	Agents
	NumPanes
)

var titles = [NumPanes]string{"Features", "Graph", "Detail", "Runs", "Output", "Recall", "Flow", "Agents"}

// Title is the pane's name in its frame.
func (p Pane) Title() string { return titles[p] }

// Rect is a screen area in cells.
type Rect struct{ X, Y, W, H int }

// Empty reports whether r has no area (the pane is not shown).
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Contains reports whether the cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Layout is where every visible pane goes.
type Layout struct {
	Wide  bool
	Rects [NumPanes]Rect
	// Tabs lists the panes that share the stacked layout's lower slot; only
	// set when narrow.
	Tabs []Pane
}

// WideMin is the width from which panes go side by side.
const WideMin = 120

// detailMaxH caps the detail pane when wide; the rest goes to the output.
const detailMaxH = 16

// Compute lays out panes in the body area (x, y, w, h). lower is the pane
// under the features when stacked; slot is output, recall, flow or agents,
// which share the place under the runs list when wide. The flow pane holds a whole
// flow run (steps, prompt, variables, live output), so it gets more room than
// the panes it replaces: the detail (wide) or the features (stacked) shrink.
//
// featW is the width the features list would like (its longest row); spare
// width goes to it, up to half the screen, so titles are not cut while the
// right column has room to give.
//
// crew: there is a crew, so the stacked layout lists the agents pane among
// its tabs (a session without one keeps its tab strip as it was).
func Compute(x, y, w, h int, lower, slot Pane, featW int, crew bool) Layout {
	var l Layout
	if w >= WideMin && h >= 16 {
		l.Wide = true
		left := max(44, w*2/5)
		if featW > left {
			left = min(featW, w/2)
		}
		right := w - left
		featH := h * 11 / 20
		l.Rects[Features] = Rect{x, y, left, featH}
		l.Rects[DAG] = Rect{x, y + featH, left, h - featH}
		// Right: the detail on top; the runs list across the whole width,
		// since a run's summary is what says what failed; the output (or
		// recall) below it, as wide as a terminal's own output.
		// Spare height goes to the output: the detail is a summary.
		detailH := min(h*2/5, detailMaxH)
		if slot == Flow {
			detailH = h / 4
		}
		runsH := min(12, max(5, h/5))
		l.Rects[Detail] = Rect{x + left, y, right, detailH}
		l.Rects[Runs] = Rect{x + left, y + detailH, right, runsH}
		if slot != Recall && slot != Flow && slot != Agents {
			slot = Output
		}
		l.Rects[slot] = Rect{x + left, y + detailH + runsH, right, h - detailH - runsH}
		return l
	}
	// Stacked: features on top, one other pane below with a tab strip.
	featH := max(5, h*9/20)
	if lower == Flow {
		featH = max(5, h/4)
	}
	if featH > h-4 {
		featH = max(3, h/2)
	}
	l.Rects[Features] = Rect{x, y, w, featH}
	if lower == Features {
		lower = Detail
	}
	l.Rects[lower] = Rect{x, y + featH, w, h - featH}
	l.Tabs = []Pane{DAG, Detail, Runs, Output, Recall, Flow}
	if lower == Agents || crew {
		// The agents pane is a tab while there is a crew or while it is
		// shown.
		l.Tabs = append(l.Tabs, Agents)
	}
	return l
}

// Box draws th's frame (lipgloss's rounded border) of exactly w×h cells
// around body lines (cut or padded to fit). title is drawn in the top edge,
// footer right-aligned in the bottom edge; both may hold SGR sequences.
//
// The edges are put together here rather than by a lipgloss border style:
// lipgloss has no titles in borders, and its Render measures and pads every
// line again (~0.5 ms for a 160×48 pane, a quarter of a frame's budget).
func Box(th *styles.Styles, title, footer string, body []string, w, h int, focused bool) []string {
	if w < 4 || h < 2 {
		return PadLines(nil, max(w, 0), max(h, 0))
	}
	border, f := th.Border, th.Frame
	if focused {
		border = th.BorderFocused
	}
	inner := w - 2
	out := make([]string, 0, h)
	title, footer = Flat(title), Flat(footer)

	tw := Width(title)
	if tw > inner-2 {
		title = Fit(title, inner-2)
		tw = inner - 2
	}
	top := border.Render(f.TopLeft+f.Top) + title + border.Render(strings.Repeat(f.Top, max(0, inner-1-tw))+f.TopRight)
	out = append(out, top)

	lines := PadLines(body, inner, h-2)
	left, right := border.Render(f.Left), border.Render(f.Right)
	for _, ln := range lines {
		out = append(out, left+ln+right)
	}

	fw := Width(footer)
	if fw > inner-2 {
		footer, fw = "", 0
	}
	var bottom string
	if fw > 0 {
		bottom = border.Render(f.BottomLeft+strings.Repeat(f.Bottom, inner-fw-1)) + footer + border.Render(f.Bottom+f.BottomRight)
	} else {
		bottom = border.Render(f.BottomLeft + strings.Repeat(f.Bottom, inner) + f.BottomRight)
	}
	return append(out, bottom)
}

// Canvas assembles boxes placed at rectangles into screen lines.
type Canvas struct {
	rows [][]seg
}

type seg struct {
	x int
	s string
}

// NewCanvas makes a canvas of h rows.
func NewCanvas(h int) *Canvas { return &Canvas{rows: make([][]seg, h)} }

// Put places lines with their top-left corner at (x, y).
func (c *Canvas) Put(x, y int, lines []string) {
	for i, ln := range lines {
		if r := y + i; r >= 0 && r < len(c.rows) {
			c.rows[r] = append(c.rows[r], seg{x, ln})
		}
	}
}

// Lines returns the rows, each the concatenation of its segments left to
// right. The caller places segments so that they tile each row.
func (c *Canvas) Lines() []string {
	out := make([]string, len(c.rows))
	var b strings.Builder
	for i, r := range c.rows {
		if len(r) > 1 {
			sort.Slice(r, func(a, b int) bool { return r[a].x < r[b].x })
		}
		b.Reset()
		for _, s := range r {
			b.WriteString(s.s)
		}
		out[i] = b.String()
	}
	return out
}
