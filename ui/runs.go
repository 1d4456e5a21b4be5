package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/output"
)

// How output is read: the plain path parses up to readChunk bytes per
// command; the emulator, ten times slower, takes emuChunk at a time so a
// flood never holds a command (or the screen) for long.
const (
	readChunk = 4 << 20
	emuChunk  = 512 << 10
	runsShown = 200
	// The runner's default pty size: a full-screen program drew for it.
	emuCols, emuRows = 120, 40
)

// feed reads one run's output into an output view, a chunk per command:
// where the next read starts, the parser's state, the emulator when the run
// needs one. The output pane has one, the flow pane another (the live output
// of the flow's current step).
type feed struct {
	view   *output.Model
	next   int64
	more   bool
	parser output.Parser
	screen *output.Screen
	busy   bool
	empty  string // what the view says while the run has printed nothing
}

// emptyNote is what a run that printed nothing (so far) says: an honest
// "nothing" once it ended, with how it ended.
func emptyNote(rec *model.RunRecord) string {
	switch {
	case rec.Outcome == model.RunRunning || rec.Outcome == "":
		return "no output yet"
	case rec.Outcome == "exited":
		return fmt.Sprintf("the run printed nothing (exit %d)", rec.ExitCode)
	}
	return "the run printed nothing (" + rec.Outcome + ")"
}

// outputMsg carries parsed output of a run.
type outputMsg struct {
	feed    *feed
	run     string
	lines   []output.Line
	partial *output.Line
	parser  output.Parser
	next    int64
	more    bool
	err     error
}

// screenMsg carries the emulator back with a snapshot of its screen.
type screenMsg struct {
	feed  *feed
	run   string
	scr   *output.Screen
	lines []output.Line
	next  int64
	more  bool
	err   error
}

// recallMsg carries the hits of one query.
type recallMsg struct {
	query string
	hits  []model.Hit
	err   error
}

// setRuns takes a fresh runs list and keeps the output pane on the selected
// run, reading what it printed since the last read.
func (m *Model) setRuns(recs []model.RunRecord) tea.Cmd {
	m.allRuns = recs
	m.runList.SetRuns(m.shownRuns())
	return m.syncOutput()
}

// shownRuns are the runs the runs pane lists: without the flows' own
// plumbing unless the person asked for it.
func (m *Model) shownRuns() []model.RunRecord {
	if m.showInternal {
		return m.allRuns
	}
	out := make([]model.RunRecord, 0, len(m.allRuns))
	for _, r := range m.allRuns {
		if !r.Internal {
			out = append(out, r)
		}
	}
	return out
}

// shownHits drops recall hits in the flows' plumbing runs, unless shown.
func (m *Model) shownHits(hits []model.Hit) []model.Hit {
	if m.showInternal {
		return hits
	}
	internal := map[string]bool{}
	for _, r := range m.allRuns {
		if r.Internal {
			internal[r.ID] = true
		}
	}
	if len(internal) == 0 {
		return hits
	}
	out := hits[:0:0]
	for _, h := range hits {
		if !internal[h.RunID] {
			out = append(out, h)
		}
	}
	return out
}

// syncOutput points the output pane at the selected run and reads more of it
// when the run grew.
func (m *Model) syncOutput() tea.Cmd {
	return m.syncFeed(m.out, m.runList.SelectedRecord(), "select a run in the runs pane")
}

// syncFeed points a feed at rec and reads more of it when the run grew. At
// most one read per feed is in flight.
func (m *Model) syncFeed(f *feed, rec *model.RunRecord, none string) tea.Cmd {
	if rec == nil {
		if f.view.Run() != "" || f.view.Len() == 0 {
			f.reset("", "", none)
		}
		return nil
	}
	if rec.ID != f.view.Run() {
		note := "reading…"
		if rec.Bytes == 0 {
			note = emptyNote(rec)
		}
		f.reset(rec.ID, model.CommandLine(rec.Argv), note)
		if rec.Forgotten {
			f.view.SetNote("this run's output was forgotten")
			return nil
		}
	}
	f.empty = emptyNote(rec) // a run that ends printing nothing says so
	if rec.Bytes == 0 && !rec.Forgotten {
		f.view.SetNote(f.empty)
	}
	if f.busy || rec.Bytes <= f.next && !f.more {
		return nil
	}
	f.busy = true
	if f.view.Emulated() {
		return m.emulateCmd(f, rec.ID, f.screen, f.next)
	}
	return m.readCmd(f, rec.ID, f.next, f.parser)
}

// resync continues reading a feed after a chunk arrived.
func (m *Model) resync(f *feed) tea.Cmd {
	if f == m.flowFeed {
		return m.syncFlowOutput()
	}
	return m.syncOutput()
}

func (f *feed) reset(run, title, note string) {
	if f.screen != nil && !f.busy {
		f.screen.Close()
	}
	f.screen, f.next, f.parser, f.more, f.busy = nil, 0, output.Parser{}, false, false
	f.view.Reset(run, title, note)
}

// readCmd reads and parses the next chunk of a run's output.
func (m *Model) readCmd(f *feed, run string, from int64, p output.Parser) tea.Cmd {
	proj := m.p
	return func() tea.Msg {
		data, next, err := proj.ReadOutput(run, from, readChunk)
		if err != nil {
			return outputMsg{feed: f, run: run, err: err, parser: p, next: from}
		}
		lines := p.Feed(data)
		msg := outputMsg{feed: f, run: run, lines: lines, parser: p, next: next, more: len(data) == readChunk}
		if l, ok := p.Flush(); ok {
			msg.partial = &l
		}
		return msg
	}
}

// emulateCmd feeds the next chunk into the emulator, which this command owns
// until its message is handled.
func (m *Model) emulateCmd(f *feed, run string, scr *output.Screen, from int64) tea.Cmd {
	p := m.p
	return func() tea.Msg {
		if scr == nil {
			scr = output.NewScreen(emuCols, emuRows)
		}
		data, next, err := p.ReadOutput(run, from, emuChunk)
		if err != nil {
			return screenMsg{feed: f, run: run, scr: scr, next: from, err: err}
		}
		scr.Feed(data)
		return screenMsg{feed: f, run: run, scr: scr, lines: scr.Snapshot(), next: next, more: len(data) == emuChunk}
	}
}

func (m *Model) onOutput(msg outputMsg) tea.Cmd {
	f := msg.feed
	if msg.run != f.view.Run() {
		return nil // the person moved to another run meanwhile
	}
	f.busy = false
	if msg.err != nil {
		f.view.SetNote("reading output: " + msg.err.Error())
		return nil
	}
	if msg.parser.Emulate {
		// Cursor movement: start over through the emulator.
		f.view.SetNote("rendering through the terminal emulator…")
		f.next, f.more, f.busy = 0, false, true
		f.view.SetSnapshot(nil)
		return m.emulateCmd(f, msg.run, nil, 0)
	}
	f.parser, f.next, f.more = msg.parser, msg.next, msg.more
	f.view.SetNote(f.empty)
	f.view.Append(msg.lines, msg.partial)
	if f == m.out {
		m.gotoPending()
	}
	return m.resync(f)
}

func (m *Model) onScreen(msg screenMsg) tea.Cmd {
	f := msg.feed
	if msg.run != f.view.Run() {
		msg.scr.Close()
		return nil
	}
	f.busy = false
	f.screen = msg.scr
	if msg.err != nil {
		f.view.SetNote("reading output: " + msg.err.Error())
		return nil
	}
	f.next, f.more = msg.next, msg.more
	f.view.SetSnapshot(msg.lines)
	if f == m.out {
		m.gotoPending()
	}
	return m.resync(f)
}

// gotoPending jumps to the line a recall hit asked for, once it is loaded.
func (m *Model) gotoPending() {
	if m.outGoto > 0 && m.output.GotoLine(m.outGoto) {
		m.outGoto = 0
	}
}

// recallCmd searches all indexed output for q. One search runs at a time: a
// search over a million lines takes tens of milliseconds and much memory,
// and a typist is faster, so keystrokes that arrive meanwhile only update the
// query the next search takes (onRecall starts it).
func (m *Model) recallCmd(q string) tea.Cmd {
	if q == "" {
		m.recallNext = ""
		m.recall.SetHits("", nil, nil)
		return nil
	}
	if m.recallBusy {
		m.recallNext = q
		return nil
	}
	m.recallBusy, m.recallNext = true, ""
	p := m.p
	return func() tea.Msg {
		hits, err := p.Hits(model.RecallQuery{Query: q, Limit: 200, LowMemory: true})
		return recallMsg{query: q, hits: hits, err: err}
	}
}

// onRecall shows a search's hits and starts the search the person typed
// meanwhile, if any.
func (m *Model) onRecall(msg recallMsg) tea.Cmd {
	m.recallBusy = false
	m.recall.SetHits(msg.query, m.shownHits(msg.hits), msg.err)
	if q := m.recallNext; q != "" && q != msg.query {
		return m.recallCmd(q)
	}
	m.recallNext = ""
	return nil
}

// recallKey: the recall pane is a text field; every printable key goes to
// the query and every change searches. Only keys that type nothing move,
// open a hit or leave the pane.
func (m *Model) recallKey(k tea.KeyPressMsg) tea.Cmd {
	if !printable(k) {
		a, _ := m.keys.Which(k, keys.Back, keys.Open, keys.Up, keys.Down, keys.PageUp, keys.PageDown, keys.NextPane, keys.PrevPane, keys.Quit, keys.Help)
		switch a {
		case keys.Back:
			back := m.recallFrom
			if back == layout.Recall {
				back = layout.Features
			}
			m.focusPane(back)
			return nil
		case keys.Open:
			return m.openHit()
		case keys.Up:
			m.recall.Move(-1)
			return nil
		case keys.Down:
			m.recall.Move(1)
			return nil
		case keys.PageUp:
			m.recall.Page(-1)
			return nil
		case keys.PageDown:
			m.recall.Page(1)
			return nil
		case keys.NextPane:
			m.focusPane((m.focus + 1) % layout.NumPanes)
			return nil
		case keys.PrevPane:
			m.focusPane((m.focus + layout.NumPanes - 1) % layout.NumPanes)
			return nil
		case keys.Quit:
			return m.quit()
		case keys.Help:
			m.openHelp(modeNormal)
			return nil
		}
	}
	q, changed, cmd := m.recall.Key(k)
	if changed {
		return tea.Batch(cmd, m.recallCmd(q))
	}
	return cmd
}

// printable reports whether a key press types text (a letter, a digit, a
// symbol, space): in a text field such a key always goes to the text.
func printable(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&^tea.ModShift == 0
}

// openHit shows the run of the selected hit at its line.
func (m *Model) openHit() tea.Cmd {
	h := m.recall.Selected()
	if h == nil {
		return nil
	}
	if !m.runList.Select(h.RunID) {
		m.note = errNote("run " + h.RunID + " is not in the runs list (only the newest are listed)")
		return nil
	}
	m.outGoto = h.Line
	m.focusPane(layout.Output)
	cmd := m.syncOutput()
	m.gotoPending()
	return cmd
}
