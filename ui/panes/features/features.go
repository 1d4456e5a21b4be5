// Package features is the features pane: the plan's features in plan order
// with status glyph, state, evidence badge and dependencies, and a fuzzy
// filter. It keeps its rows precomputed; View only paints the visible ones.
package features

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/sahilm/fuzzy"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/scroll"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// row is one feature, reduced to what the pane shows.
type row struct {
	id, title string
	state     model.FeatureState
	deps      string
	why       string // blocked: why, said before the dependencies and title
	badge     string
	badgeP    styles.Style
	haystack  string // what the filter matches: id and title
}

// whyMax bounds a blocked feature's reason in its row.
const whyMax = 120

// Model is the features pane.
type Model struct {
	th      *styles.Styles
	rows    []row
	visible []int         // indexes into rows that pass the filter, plan order
	hits    map[int][]int // row -> byte offsets the filter matched, for highlight
	filter  string
	sc      scroll.State
	w, h    int
	idW     int
	tailW   int // the widest dependencies + title
	// trees are the trees the active features' code is at now: evidence
	// of other code shows as stale.
	trees map[string]string
}

// SetTrees sets the trees the active features' code is at (the next
// SetSession shows evidence of other code as stale).
func (m *Model) SetTrees(trees map[string]string) { m.trees = trees }

// New returns an empty pane.
func New(th *styles.Styles) *Model { return &Model{th: th} }

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) { m.th = th }

// SetSession replaces the rows, keeping the selected feature when it still
// exists.
func (m *Model) SetSession(s *model.Session) {
	sel := m.Selected()
	m.rows = m.rows[:0]
	m.idW, m.tailW = 0, 0
	if s != nil && s.Plan != nil {
		for i := range s.Plan.Features {
			f := &s.Plan.Features[i]
			r := row{id: f.ID, title: f.Title, state: model.StateOf(s, f), haystack: f.ID + " " + f.Title, why: model.BlockReason(f, whyMax)}
			var deps []string
			deps = append(deps, f.DependsOn...)
			for _, b := range f.BlockedBy {
				deps = append(deps, "⊘"+b)
			}
			if len(deps) > 0 {
				r.deps = "← " + strings.Join(deps, ", ")
			}
			r.badge, r.badgeP = m.th.EvidenceBadge(model.LatestEvidence(f))
			if f.Status == model.FeatureInProgress && model.HasStale(model.Checks(f, m.trees[f.ID])) {
				r.badge, r.badgeP = "stale", m.th.Warn
			}
			m.rows = append(m.rows, r)
			m.idW = max(m.idW, layout.Width(f.ID))
			// A blocked feature's reason takes from its title, not the
			// column's width: the layout stays put when a feature blocks.
			tail := layout.Width(r.deps) + 2 + layout.Width(f.Title)
			m.tailW = max(m.tailW, tail)
		}
	}
	m.applyFilter()
	if sel != "" {
		m.Select(sel)
	}
}

// Want is the width the rows would like: every title whole.
func (m *Model) Want() int {
	if len(m.rows) == 0 {
		return 0
	}
	return 3 + m.idW + 10 + 5 + 1 + m.tailW
}

// SetFilter narrows the rows to fuzzy matches of q ("" shows all).
func (m *Model) SetFilter(q string) {
	sel := m.Selected()
	m.filter = q
	m.applyFilter()
	if sel != "" {
		m.Select(sel)
	}
}

// Filter is the current filter text.
func (m *Model) Filter() string { return m.filter }

func (m *Model) applyFilter() {
	m.visible = m.visible[:0]
	m.hits = nil
	if m.filter == "" {
		for i := range m.rows {
			m.visible = append(m.visible, i)
		}
	} else {
		hay := make([]string, len(m.rows))
		for i, r := range m.rows {
			hay[i] = r.haystack
		}
		m.hits = map[int][]int{}
		for _, match := range fuzzy.Find(m.filter, hay) {
			m.visible = append(m.visible, match.Index)
			m.hits[match.Index] = match.MatchedIndexes
		}
		// Plan order reads better than score order: the plan is a sequence.
		sort.Ints(m.visible)
	}
	m.sc.SetLen(len(m.visible))
}

// Selected is the id of the feature under the cursor, or "".
func (m *Model) Selected() string {
	if m.sc.Cursor < 0 || m.sc.Cursor >= len(m.visible) {
		return ""
	}
	return m.rows[m.visible[m.sc.Cursor]].id
}

// Select moves the cursor to feature id when it is visible.
func (m *Model) Select(id string) bool {
	for i, ri := range m.visible {
		if m.rows[ri].id == id {
			m.sc.Set(i)
			return true
		}
	}
	return false
}

// IDs returns every feature id in plan order (for completion).
func (m *Model) IDs() []string {
	out := make([]string, len(m.rows))
	for i, r := range m.rows {
		out[i] = r.id
	}
	return out
}

// Len is the number of rows shown; Total the number of features.
func (m *Model) Len() int   { return len(m.visible) }
func (m *Model) Total() int { return len(m.rows) }

// Navigation.
func (m *Model) Move(d int)     { m.sc.Move(d) }
func (m *Model) Page(dir int)   { m.sc.Page(dir) }
func (m *Model) Top()           { m.sc.Top() }
func (m *Model) Bottom()        { m.sc.Bottom() }
func (m *Model) Scroll(d int)   { m.sc.Scroll(d) }
func (m *Model) ClickRow(y int) { m.sc.Set(m.sc.Offset + y) }

// SetSize sets the content area.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.sc.SetHeight(h) }

// Footer is the position indicator for the frame.
func (m *Model) Footer() string {
	if len(m.rows) == 0 {
		return ""
	}
	if m.filter != "" {
		return fmt.Sprintf(" %d/%d matching ", len(m.visible), len(m.rows))
	}
	return layout.Position("feature", m.sc.Cursor+1, len(m.rows))
}

// View paints the visible rows, exactly h lines of width w.
func (m *Model) View(focused bool) []string {
	if len(m.rows) == 0 {
		return layout.PadLines([]string{m.th.Dim.Render(" no plan yet")}, m.w, m.h)
	}
	if len(m.visible) == 0 {
		return layout.PadLines([]string{m.th.Dim.Render(" nothing matches " + fmt.Sprintf("%q", m.filter))}, m.w, m.h)
	}
	from, to := m.sc.Window()
	lines := make([]string, 0, m.h)
	for i := from; i < to; i++ {
		lines = append(lines, m.renderRow(m.visible[i], i == m.sc.Cursor, focused))
	}
	return layout.PadLines(lines, m.w, m.h)
}

// Column widths shrink with the pane: id, state word and badge first,
// dependencies and title with what is left.
func (m *Model) renderRow(ri int, selected, focused bool) string {
	r := m.rows[ri]
	idW := min(m.idW, max(8, m.w/3))
	const stateW, badgeW = 9, 4
	var b strings.Builder
	marker := " "
	if selected {
		marker = "›"
	}
	sp := m.th.State(r.state)
	b.WriteString(marker)
	b.WriteString(sp.Render(r.state.Glyph()))
	b.WriteByte(' ')
	b.WriteString(m.paintID(ri, layout.Fit(layout.Cut(r.id, idW), idW), sp))
	rest := m.w - 3 - idW
	if rest >= stateW+1 {
		b.WriteByte(' ')
		b.WriteString(sp.Render(layout.Fit(styles.Label(r.state), stateW)))
		rest -= stateW + 1
	}
	if rest >= badgeW+1 {
		b.WriteByte(' ')
		b.WriteString(r.badgeP.Render(layout.Fit(r.badge, badgeW)))
		rest -= badgeW + 1
	}
	tail := r.deps
	if r.title != "" && r.title != r.id {
		if tail != "" {
			tail += "  "
		}
		tail += r.title
	}
	if r.why != "" && rest >= 4 {
		// Why it is blocked comes first: it is what the person acts on.
		why := layout.Cut(r.why, rest-1)
		b.WriteByte(' ')
		b.WriteString(sp.Render(why))
		rest -= layout.Width(why) + 1
		if tail != "" {
			tail = " " + tail
		}
	}
	if rest >= 4 && tail != "" {
		b.WriteByte(' ')
		b.WriteString(m.th.Dim.Render(layout.Cut(tail, rest-1)))
	}
	line := b.String()
	if selected {
		p := m.th.SelectedBlur
		if focused {
			p = m.th.Selected
		}
		// Repaint the whole row so the highlight spans the pane.
		return p.Render(layout.Fit(ansi.Strip(line), m.w))
	}
	return line
}

// paintID paints the id, underlining the runes the filter matched.
func (m *Model) paintID(ri int, id string, p styles.Style) string {
	hits := m.hits[ri]
	if len(hits) == 0 {
		return p.Render(id)
	}
	hit := map[int]bool{}
	for _, h := range hits {
		hit[h] = true
	}
	var b strings.Builder
	for i, r := range id {
		if hit[i] {
			b.WriteString(m.th.Match.Render(string(r)))
		} else {
			b.WriteString(p.Render(string(r)))
		}
	}
	return b.String()
}
