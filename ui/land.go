package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// Landing is the person's decision: L opens a dialog that shows what would
// be merged (the session's change as a diff stat, the integration branch
// and the branch checked out) and y lands it, as flowdeck flow land does.

// landDialog asks before landing the session's integration branch. Its
// preview is read in a command; until it arrives y waits for it.
type landDialog struct {
	dialogBase
	session     string
	integration string
	loaded      bool
	target      string // the branch checked out ("" detached or unknown)
	targetErr   string
	diff        *ops.DiffResult
	diffErr     string // why the change could not be listed
}

// landPreviewMsg is a land dialog's preview, read off the Update path.
type landPreviewMsg struct {
	d         *landDialog
	target    string
	targetErr error
	diff      *ops.DiffResult
	diffErr   error
}

// landMsg is what land did.
type landMsg struct {
	res *ops.LandResult
	err error
}

func (d *landDialog) ID() string { return "land" }

func (d *landDialog) Title(*Model) string {
	return "Land session " + d.session + "?"
}

// landFiles is how many files the dialog lists before it counts the rest.
func landFiles(h int) int {
	if h >= promptRoomy {
		return 10
	}
	return 4
}

func (d *landDialog) Body(m *Model) []string {
	th := m.th
	target := d.target
	switch {
	case !d.loaded:
		target = "the branch checked out"
	case d.targetErr != "":
		target = "the branch checked out (" + d.targetErr + ")"
	case target == "":
		target = "(no branch: HEAD is detached, land will refuse)"
	}
	out := layout.Wrap("Merges "+d.integration+" into "+target+" (a fast-forward when it can; a conflict changes nothing).",
		max(20, m.w-4), "  ")
	switch {
	case !d.loaded:
		return append(out, th.Dim.Render("reading the change…"))
	case d.diffErr != "":
		return append(out, th.Warn.Render("the change could not be listed: "+d.diffErr))
	}
	files := d.diff.Files
	out = append(out, fmt.Sprintf("%d %s changed, %s %s:", len(files), plural(len(files), "file", "files"),
		th.Ok.Render(fmt.Sprintf("+%d", d.diff.Added)), th.Err.Render(fmt.Sprintf("−%d", d.diff.Removed))))
	n := landFiles(m.h)
	if len(files) > n {
		n-- // the last line counts the rest
	}
	shown := files[:min(n, len(files))]
	col := 0
	for _, f := range shown {
		col = max(col, layout.Width(statText(f)))
	}
	for _, f := range shown {
		stat := th.Dim.Render("binary")
		if !f.Binary {
			stat = th.Ok.Render(fmt.Sprintf("+%d", f.Added)) + " " + th.Err.Render(fmt.Sprintf("−%d", f.Removed))
		}
		out = append(out, "  "+layout.Fit(stat, col)+"  "+layout.Cut(termtext.Line(f.Path), max(10, m.w-col-8)))
	}
	if len(shown) < len(files) {
		out = append(out, th.Dim.Render(fmt.Sprintf("  … and %d more files", len(files)-len(shown))))
	}
	return out
}

// statText is a file's counts as the dialog shows them: "+12 −3", "binary".
func statText(f gitwork.FileStat) string {
	if f.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d −%d", f.Added, f.Removed)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (d *landDialog) KeyMap(m *Model) keyMap {
	k := m.keyMapOf([]keys.Action{keys.Yes, keys.No})
	k.desc = map[keys.Action]string{keys.Yes: "land it", keys.No: "not now"}
	return k
}

func (d *landDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a, ok := m.keys.Which(k, keys.Yes, keys.No, keys.Back)
	if !ok {
		return nil, false
	}
	if a != keys.Yes {
		m.drop(d.ID())
		m.note = infoNote("not landed")
		return nil, true
	}
	if !d.loaded {
		m.note = infoNote("the change is still being read: " + m.keyName(keys.Yes) + " once it shows")
		return nil, true
	}
	m.drop(d.ID())
	return m.landCmd(d.seq), true
}

// startLand opens the land dialog, or says why there is nothing to land:
// the refusal flow land gives.
func (m *Model) startLand() tea.Cmd {
	s := m.sess
	if e := ops.LandGate(s, false); e != nil {
		m.note = refusalNote(e)
		return nil
	}
	d := &landDialog{dialogBase: dialogBase{seq: m.sessSeq()}, session: s.ID, integration: s.Git.Integration}
	m.push(d, false)
	p := m.p
	return func() tea.Msg {
		msg := landPreviewMsg{d: d}
		msg.target, msg.targetErr = p.LandTarget()
		msg.diff, msg.diffErr = p.Diff(ops.DiffRequest{Session: true})
		if msg.diff != nil {
			msg.diff.Patch = "" // the stat is shown; the patch is flowdeck diff's
			cleanText(msg.diff)
		}
		msg.target = termtext.Line(msg.target)
		return msg
	}
}

// onLandPreview fills in the dialog it was read for, if it is still open.
func (m *Model) onLandPreview(msg landPreviewMsg) {
	for _, d := range m.dialogs {
		if d != Dialog(msg.d) {
			continue
		}
		l := msg.d
		l.loaded, l.target, l.diff = true, msg.target, msg.diff
		if msg.targetErr != nil {
			l.targetErr = termtext.Line(msg.targetErr.Error())
		}
		switch {
		case msg.diffErr != nil:
			l.diffErr = termtext.Line(msg.diffErr.Error())
		case msg.diff == nil:
			l.diffErr = "no change to show"
		case msg.diff.Error != nil:
			l.diffErr = termtext.Line(msg.diff.Error.Code + ": " + msg.diff.Error.Message)
		}
	}
}

// landCmd lands the session as decided on sequence seen: refused
// (stale_decision) if what it would land changed since.
func (m *Model) landCmd(seen uint64) tea.Cmd {
	p := m.p
	m.note = infoNote("landing…")
	return func() tea.Msg {
		res, err := p.LandSeen(false, seen)
		if res != nil && res.State != nil {
			cleanText(res.State) // as a load does, before the session is drawn
		}
		return landMsg{res: res, err: err}
	}
}

// onLand says what land did, as the CLI says it, and shows the session
// after it at once.
func (m *Model) onLand(msg landMsg) tea.Cmd {
	res := msg.res
	switch {
	case msg.err != nil:
		m.note = errNote("land failed: " + msg.err.Error())
		return nil
	case res.Error != nil:
		m.note = refusalNote(res.Error)
		return nil
	}
	line := res.Done()
	m.note = okNote(line)
	if res.Warning != "" {
		m.note = errNote(line + " — " + res.Warning)
	}
	if res.State == nil {
		return nil
	}
	cmd := m.setSession(res.State)
	m.minLoad = m.loadSeq + 1 // loads issued before now may predate the landing
	return tea.Batch(cmd, m.loadCmd())
}
