package ui

import (
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// Each context of the cockpit (a pane, a text field, the help, a dialog)
// owns a keyMap: its bindings drive the dispatch, the hint bar and the full
// help alike, so a rebound key changes all three. The root keeps the global
// bindings below.

// globalKeys work in every pane (not in text fields, where printable keys
// are text).
var globalKeys = []keys.Action{keys.Quit, keys.Help, keys.Command, keys.Recall, keys.Mouse, keys.Land, keys.ShowDiff,
	keys.NextPane, keys.PrevPane, keys.Pane1, keys.Pane2, keys.Pane3, keys.Pane4, keys.Pane5, keys.Pane6, keys.Pane7, keys.Pane8,
	keys.FocusDialog, keys.Kill}

var (
	moveKeys    = []keys.Action{keys.Up, keys.Down, keys.Top, keys.Bottom, keys.PageDown, keys.PageUp, keys.Open, keys.Back}
	featureKeys = []keys.Action{keys.Start, keys.Verify, keys.Approve, keys.NeedsFix, keys.Block, keys.Complete1, keys.Reset, keys.ResetSession, keys.ApprovePlan}
)

// paneKeyMap is what a pane's keys do.
func (m *Model) paneKeyMap(p layout.Pane) keyMap {
	switch p {
	case layout.Features, layout.DAG:
		k := m.keyMapOf([]keys.Action{keys.NextPane, keys.Start, keys.Verify, keys.Approve, keys.NeedsFix, keys.Block, keys.Reset, keys.Filter, keys.Command},
			append(moveKeys, keys.Filter), featureKeys)
		// At 80 columns not all fit: approve and reset (what the demo asks
		// for) stay, then moving around; filter and command line go first.
		k.rank = []keys.Action{keys.Approve, keys.Reset, keys.NextPane, keys.Verify, keys.Start, keys.NeedsFix, keys.Block, keys.Filter, keys.Command}
		return k
	case layout.Detail:
		return m.keyMapOf([]keys.Action{keys.NextPane, keys.Down, keys.Back, keys.Approve, keys.Command}, moveKeys, featureKeys)
	case layout.Runs:
		return m.keyMapOf([]keys.Action{keys.NextPane, keys.Down, keys.Open, keys.Follow, keys.ShowAll, keys.Recall, keys.Command},
			moveKeys, []keys.Action{keys.Follow, keys.ShowAll, keys.Kill})
	case layout.Output:
		return m.keyMapOf([]keys.Action{keys.NextPane, keys.Follow, keys.Wrap, keys.Filter, keys.SearchNext, keys.SearchPrev, keys.Bottom},
			moveKeys, []keys.Action{keys.Follow, keys.Wrap, keys.Filter, keys.SearchNext, keys.SearchPrev, keys.Kill})
	case layout.Recall:
		return m.recallKeyMap()
	case layout.Agents:
		return m.agentsKeyMap()
	case layout.Flow:
		short := []keys.Action{keys.NextPane, keys.PauseFlow, keys.ResumeFlow, keys.CancelFlow, keys.Down, keys.Follow, keys.Command}
		if len(m.decisions) > 0 {
			short = append([]keys.Action{keys.Open}, short...)
		}
		return m.keyMapOf(short, moveKeys, []keys.Action{keys.PauseFlow, keys.ResumeFlow, keys.CancelFlow, keys.Follow, keys.Wrap})
	}
	return m.keyMapOf(nil)
}

// recallKeyMap: the recall pane is a text field; only keys that type
// nothing act.
func (m *Model) recallKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Down, keys.Open, keys.Back, keys.NextPane},
		[]keys.Action{keys.Up, keys.Down, keys.PageDown, keys.PageUp, keys.Open, keys.Back, keys.NextPane, keys.PrevPane})
	k.desc = map[keys.Action]string{keys.Open: "open at the line", keys.Down: "choose"}
	return k
}

func (m *Model) filterKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Down, keys.Open, keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "keep", keys.Back: "clear"}
	return k
}

func (m *Model) searchKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Open, keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "search", keys.Back: "cancel"}
	return k
}

func (m *Model) commandKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Open, keys.Complete, keys.Up, keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "run", keys.Up: "history", keys.Back: "close"}
	return k
}

// contextKeyMap is the key map of whatever has the keys now, and the words
// the hint bar starts with.
func (m *Model) contextKeyMap() (keyMap, string) {
	switch {
	case m.mode == modeHelp && m.hlp.typing:
		return m.helpFilterKeyMap(), "type to filter"
	case m.mode == modeHelp:
		return m.helpKeyMap(), ""
	case m.top() != nil && !m.docked:
		return m.top().KeyMap(m), ""
	case m.mode == modeFilter:
		return m.filterKeyMap(), "type to filter"
	case m.mode == modeCommand:
		return m.commandKeyMap(), ""
	case m.mode == modeSearch:
		return m.searchKeyMap(), "type the text to find"
	case m.mode == modeRecall:
		return m.recallKeyMap(), "type to search all output"
	}
	return m.paneKeyMap(m.focus), ""
}

// toggleInternal shows or hides the runs flows make for their own plumbing.
func (m *Model) toggleInternal() {
	m.showInternal = !m.showInternal
	m.runList.SetRuns(m.shownRuns())
	if m.showInternal {
		m.note = infoNote("internal runs shown (the flows' own exec blocks)")
	} else {
		m.note = infoNote("internal runs hidden")
	}
}
