package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/ui/layout"
)

// paneAt finds the pane under a screen cell.
func (m *Model) paneAt(x, y int) (layout.Pane, layout.Rect, bool) {
	for p := layout.Pane(0); p < layout.NumPanes; p++ {
		r := m.lay.Rects[p]
		if !r.Empty() && r.Contains(x, y) {
			return p, r, true
		}
	}
	return 0, layout.Rect{}, false
}

// onClick focuses the pane under the pointer and, in a list, selects the row.
func (m *Model) onClick(ms tea.Mouse) tea.Cmd {
	if !m.mouse || (m.top() != nil && !m.docked) || m.mode != modeNormal || ms.Button != tea.MouseLeft {
		return nil
	}
	p, r, ok := m.paneAt(ms.X, ms.Y)
	if !ok {
		return nil
	}
	m.focusPane(p)
	row := ms.Y - r.Y - 1 // below the top border
	if row < 0 || row >= r.H-2 {
		return nil
	}
	switch p {
	case layout.Features:
		m.feats.ClickRow(row)
		return m.setSel(m.feats.Selected())
	case layout.DAG:
		m.graph.ClickRow(row)
		return m.setSel(m.graph.Selected())
	case layout.Runs:
		m.runList.ClickRow(row)
		return m.syncOutput()
	case layout.Agents:
		if row > 0 { // the summary line
			m.crew.pane.ClickRow(row)
		}
	}
	return nil
}

// onWheel scrolls the pane under the pointer, focused or not.
func (m *Model) onWheel(ms tea.Mouse) tea.Cmd {
	if !m.mouse {
		return nil
	}
	d := 0
	switch ms.Button {
	case tea.MouseWheelUp:
		d = -3
	case tea.MouseWheelDown:
		d = 3
	default:
		return nil
	}
	p, _, ok := m.paneAt(ms.X, ms.Y)
	if !ok {
		return nil
	}
	switch p {
	case layout.Features:
		// The list's cursor rides along with its window.
		m.feats.Scroll(d)
		return m.setSel(m.feats.Selected())
	case layout.DAG:
		m.graph.Scroll(d)
	case layout.Runs:
		m.runList.Scroll(d)
		return m.syncOutput()
	default:
		m.pane(p).Scroll(d)
	}
	return nil
}
