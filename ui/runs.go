package ui

import (
	tea "charm.land/bubbletea/v2"

	"flowdeck/db"
	"flowdeck/model"
	"flowdeck/ui/layout"
	"flowdeck/ui/panes/output"
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

// outputMsg carries parsed output of a run.
type outputMsg struct {
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
	hits  []db.Hit
	err   error
}

// setRuns takes a fresh runs list and keeps the output pane on the selected
// run, reading what it printed since the last read.
func (m *Model) setRuns(recs []db.RunRecord) tea.Cmd {
	m.runList.SetRuns(recs)
	return m.syncOutput()
}

// syncOutput points the output pane at the selected run and reads more of it
// when the run grew. At most one read is in flight.
func (m *Model) syncOutput() tea.Cmd {
	rec := m.runList.SelectedRecord()
	if rec == nil {
		if m.output.Run() != "" || m.output.Len() == 0 {
			m.resetOutput("", "", "select a run in the runs pane")
		}
		return nil
	}
	if rec.ID != m.output.Run() {
		note := "reading…"
		if rec.Bytes == 0 {
			note = "no output yet"
		}
		m.resetOutput(rec.ID, model.ShellJoin(rec.Argv), note)
		if rec.Forgotten {
			m.output.SetNote("this run's output was forgotten")
			return nil
		}
	}
	if m.outBusy || rec.Bytes <= m.outNext && !m.outMore {
		return nil
	}
	m.outBusy = true
	if m.output.Emulated() {
		return m.emulateCmd(rec.ID, m.outScreen, m.outNext)
	}
	return m.readCmd(rec.ID, m.outNext, m.outParser)
}

func (m *Model) resetOutput(run, title, note string) {
	if m.outScreen != nil && !m.outBusy {
		m.outScreen.Close()
	}
	m.outScreen, m.outNext, m.outParser, m.outMore, m.outBusy = nil, 0, output.Parser{}, false, false
	m.outGen++
	m.output.Reset(run, title, note)
}

// readCmd reads and parses the next chunk of a run's output.
func (m *Model) readCmd(run string, from int64, p output.Parser) tea.Cmd {
	st := m.st
	return func() tea.Msg {
		data, next, err := st.ReadOutput(run, from, readChunk)
		if err != nil {
			return outputMsg{run: run, err: err, parser: p, next: from}
		}
		lines := p.Feed(data)
		msg := outputMsg{run: run, lines: lines, parser: p, next: next, more: len(data) == readChunk}
		if l, ok := p.Flush(); ok {
			msg.partial = &l
		}
		return msg
	}
}

// emulateCmd feeds the next chunk into the emulator, which this command owns
// until its message is handled.
func (m *Model) emulateCmd(run string, scr *output.Screen, from int64) tea.Cmd {
	st := m.st
	return func() tea.Msg {
		if scr == nil {
			scr = output.NewScreen(emuCols, emuRows)
		}
		data, next, err := st.ReadOutput(run, from, emuChunk)
		if err != nil {
			return screenMsg{run: run, scr: scr, next: from, err: err}
		}
		scr.Feed(data)
		return screenMsg{run: run, scr: scr, lines: scr.Snapshot(), next: next, more: len(data) == emuChunk}
	}
}

func (m *Model) onOutput(msg outputMsg) tea.Cmd {
	if msg.run != m.output.Run() {
		return nil // the person moved to another run meanwhile
	}
	m.outBusy = false
	if msg.err != nil {
		m.output.SetNote("reading output: " + msg.err.Error())
		return nil
	}
	if msg.parser.Emulate {
		// Cursor movement: start over through the emulator.
		m.output.SetNote("rendering through the terminal emulator…")
		m.outNext, m.outMore, m.outBusy = 0, false, true
		m.output.SetSnapshot(nil)
		return m.emulateCmd(msg.run, nil, 0)
	}
	m.outParser, m.outNext, m.outMore = msg.parser, msg.next, msg.more
	m.output.SetNote("no output yet")
	m.output.Append(msg.lines, msg.partial)
	m.gotoPending()
	return m.syncOutput()
}

func (m *Model) onScreen(msg screenMsg) tea.Cmd {
	if msg.run != m.output.Run() {
		msg.scr.Close()
		return nil
	}
	m.outBusy = false
	m.outScreen = msg.scr
	if msg.err != nil {
		m.output.SetNote("reading output: " + msg.err.Error())
		return nil
	}
	m.outNext, m.outMore = msg.next, msg.more
	m.output.SetSnapshot(msg.lines)
	m.gotoPending()
	return m.syncOutput()
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
	st := m.st
	return func() tea.Msg {
		hits, err := st.Recall(db.RecallQuery{Query: q, Limit: 200})
		return recallMsg{query: q, hits: hits, err: err}
	}
}

// onRecall shows a search's hits and starts the search the person typed
// meanwhile, if any.
func (m *Model) onRecall(msg recallMsg) tea.Cmd {
	m.recallBusy = false
	m.recall.SetHits(msg.query, msg.hits, msg.err)
	if q := m.recallNext; q != "" && q != msg.query {
		return m.recallCmd(q)
	}
	m.recallNext = ""
	return nil
}

// recallKey: typing into the recall query; every keystroke searches.
func (m *Model) recallKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.recall.StopEditing()
		m.mode = modeNormal
		return nil
	case "enter":
		m.recall.StopEditing()
		m.mode = modeNormal
		return m.openHit()
	case "up":
		m.recall.Move(-1)
		return nil
	case "down":
		m.recall.Move(1)
		return nil
	case "ctrl+c":
		return m.quit()
	}
	q, changed, cmd := m.recall.Key(k)
	if changed {
		return tea.Batch(cmd, m.recallCmd(q))
	}
	return cmd
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
