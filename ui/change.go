package ui

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/internal/editor"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/panes/diffview"
)

// The change is the review: a feature's diff (its base to the tree its
// evidence ran against) or the session's, read in a command through the
// project's Diff (what flowdeck diff prints) and drawn by diffview. The
// review dialog opens on it; d shows it from any pane.

// maxChangeBytes bounds what the cockpit holds of one diff; files beyond it
// are listed, not shown.
const maxChangeBytes = 16 << 20

// changeView is one change inside a dialog.
type changeView struct {
	id      int // which load a changeMsg answers
	req     ops.DiffRequest
	loaded  bool
	res     *ops.DiffResult
	problem string // why there is no diff: a refusal or an error
	view    *diffview.Model
}

// changeMsg is a loaded change.
type changeMsg struct {
	id  int
	res *ops.DiffResult
	err error
}

// highlightMsg asks the shown change to highlight more of its screen:
// highlighting is spread over ticks so no frame waits for it.
type highlightMsg struct{ id int }

const highlightTick = 15 * time.Millisecond

func (m *Model) newChange(req ops.DiffRequest) *changeView {
	m.changeSeq++
	req.MaxBytes = maxChangeBytes
	v := diffview.New(m.th)
	return &changeView{id: m.changeSeq, req: req, view: v}
}

// loadChange reads the change in a command.
func (m *Model) loadChange(c *changeView) tea.Cmd {
	p, id, req := m.p, c.id, c.req
	return func() tea.Msg {
		res, err := p.Diff(req)
		return changeMsg{id: id, res: res, err: err}
	}
}

// shownChange is the change of the top dialog, if it shows one.
func (m *Model) shownChange() *changeView {
	switch d := m.top().(type) {
	case *reviewDialog:
		if d.showsChange() {
			return d.change
		}
	case *changeDialog:
		return d.change
	}
	return nil
}

func (m *Model) changeOf(id int) *changeView {
	for _, d := range m.dialogs {
		switch d := d.(type) {
		case *reviewDialog:
			if d.change != nil && d.change.id == id {
				return d.change
			}
		case *changeDialog:
			if d.change.id == id {
				return d.change
			}
		}
	}
	return nil
}

func (m *Model) onChange(msg changeMsg) tea.Cmd {
	c := m.changeOf(msg.id)
	if c == nil {
		return nil // its dialog closed meanwhile
	}
	c.loaded = true
	switch {
	case msg.err != nil:
		c.problem = msg.err.Error()
	case msg.res.Error != nil:
		c.problem = msg.res.Error.Message
	default:
		c.res = msg.res
		c.view.SetDiff(diffview.Parse([]byte(msg.res.Patch)))
		c.view.ShowAll() // every file's header with its counts, then its diff; esc lists the files
		c.view.Top()
	}
	return m.highlightSoon()
}

// highlightSoon schedules the next highlight step of the shown change.
func (m *Model) highlightSoon() tea.Cmd {
	c := m.shownChange()
	if c == nil || !c.loaded || !c.view.Pending() {
		return nil
	}
	id := c.id
	return tea.Tick(highlightTick, func(time.Time) tea.Msg { return highlightMsg{id: id} })
}

func (m *Model) onHighlight(msg highlightMsg) tea.Cmd {
	c := m.shownChange()
	if c == nil || c.id != msg.id {
		return nil
	}
	c.view.Highlight()
	return m.highlightSoon()
}

// lines draws the change in w×h: a line of totals, then the viewer.
func (c *changeView) lines(m *Model, w, h int) []string {
	th := m.th
	switch {
	case !c.loaded:
		return []string{th.Dim.Render("reading the change…")}
	case c.problem != "":
		return []string{th.Warn.Render(termtext.Line(c.problem))}
	}
	r := c.res
	head := fmt.Sprintf("%d files changed, +%d −%d", len(r.Files), r.Added, r.Removed)
	if len(r.Omitted) > 0 {
		head += fmt.Sprintf(" · %d files too large to show", len(r.Omitted))
	}
	out := []string{th.Dim.Render(head)}
	if r.Stale {
		out = append(out, th.Warn.Render("⚠ the code changed after this evidence: approving is refused until it is validated again ("+
			m.keyName(keys.Verify)+" on the feature)"))
	}
	if len(r.Protected) > 0 {
		out = append(out, th.Warn.Render(termtext.Line("⚠ not the project's code (completion and land refuse it): "+model.NamedPaths(r.Protected))))
	}
	if len(r.Files) == 0 {
		return append(out, th.Dim.Render("no change since the feature started"))
	}
	c.view.SetSize(w, max(3, h-len(out)))
	return append(out, c.view.View()...)
}

// key handles the keys that move in the change; handled reports whether k
// was one.
func (c *changeView) key(m *Model, a keys.Action) (tea.Cmd, bool) {
	if !c.loaded || c.res == nil {
		return nil, false
	}
	if a == keys.EditAt {
		return m.editAtChange(c), true
	}
	if !MoveInDiff(c.view, a) {
		return nil, false
	}
	return m.highlightSoon(), true
}

// MoveInDiff does in v what a key that moves in a change does (the
// cockpit's and the fleet view's changes answer the same keys); false when
// a is none of them, or is enter where nothing opens (a file's whole diff).
func MoveInDiff(v *diffview.Model, a keys.Action) bool {
	switch a {
	case keys.Up:
		v.Move(-1)
	case keys.Down:
		v.Move(1)
	case keys.PageUp:
		v.FullPage(-1)
	case keys.PageDown:
		v.FullPage(1)
	case keys.Top:
		v.Top()
	case keys.Bottom:
		v.Bottom()
	case keys.NextFile:
		v.NextFile()
	case keys.PrevFile:
		v.PrevFile()
	case keys.Open: // a file's whole diff, from the list or from where it is on screen
		if v.Mode() == diffview.ModeFile {
			return false
		}
		v.OpenSelected()
	default:
		return false
	}
	return true
}

// shortKeys are the change's keys for a dialog's footer: enter only where
// it opens something (not in a file's diff), e only with a file to edit.
func (c *changeView) shortKeys() []keys.Action {
	if c.res == nil || len(c.res.Files) == 0 {
		return nil
	}
	if c.view.Mode() == diffview.ModeFile {
		return []keys.Action{keys.NextFile, keys.EditAt}
	}
	return []keys.Action{keys.Open, keys.NextFile, keys.EditAt}
}

// backDesc is what esc does in a dialog showing the change: back from a
// diff to the list of files, else what the dialog does (closing).
func (c *changeView) backDesc(closing string) string {
	if c.res != nil && c.view.Mode() != diffview.ModeList {
		return "list files"
	}
	return closing
}

// changeKeys are the keys a change answers to, for the dialogs' key maps.
var changeKeys = []keys.Action{keys.Up, keys.Down, keys.PageDown, keys.PageUp, keys.Top, keys.Bottom,
	keys.NextFile, keys.PrevFile, keys.Open, keys.EditAt}

// editAtChange opens the person's editor at the selected file's first
// changed line, in the work tree the diff is of. The file is looked at in
// the command, not in Update.
func (m *Model) editAtChange(c *changeView) tea.Cmd {
	path, line := c.view.FirstChangedLine()
	if path == "" || c.res == nil || c.res.Dir == "" {
		m.note = infoNote("nothing to edit: the selected file was deleted, or the change has no work tree")
		return nil
	}
	dir := c.res.Dir
	return func() tea.Msg {
		cmd, err := editorAt(dir, path, line)
		if err != nil {
			return noteMsg{note: errNote(err.Error())}
		}
		return tea.ExecProcess(cmd, func(err error) tea.Msg {
			if err != nil {
				return noteMsg{note: errNote("the editor: " + err.Error())}
			}
			return noteMsg{note: infoNote("back from the editor: the change is read again when you reopen it")}
		})()
	}
}

// editorAt is the person's editor on path at line, in work tree dir. The
// path comes from the diff (an agent wrote it): it is looked up beneath
// dir through an os.Root, so neither ".." nor a symlink (of the file or a
// directory on the way) leads the editor out, and it must be a regular
// file.
func editorAt(dir, path string, line int) (*exec.Cmd, error) {
	r, err := contain.Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	name := filepath.FromSlash(path)
	if fi, err := r.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not opening %s: it is not a regular file inside %s", model.ShellQuote(path), dir)
	}
	cmd, err := editor.CommandAt(filepath.Join(dir, name), line)
	if err != nil {
		return nil, err
	}
	cmd.Dir = dir
	return cmd, nil
}

// changeDialog shows a change and nothing else: d on a feature.
type changeDialog struct {
	dialogBase
	title  string
	change *changeView
}

func (d *changeDialog) ID() string          { return "change" }
func (d *changeDialog) Title(*Model) string { return d.title }

func (d *changeDialog) Body(m *Model) []string {
	return d.change.lines(m, max(10, m.w-4), changeHeight(m, 0))
}

func (d *changeDialog) KeyMap(m *Model) keyMap {
	k := m.keyMapOf(append(d.change.shortKeys(), keys.Back), changeKeys, []keys.Action{keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "one file", keys.Back: d.change.backDesc("close")}
	return k
}

func (d *changeDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a, ok := m.keys.Which(k, d.KeyMap(m).actions()...)
	if !ok {
		return nil, false
	}
	if a == keys.Back {
		if !d.change.view.Back() || d.change.res == nil {
			m.pop()
		}
		return nil, true
	}
	return d.change.key(m, a)
}

// openChange shows feature id's change (the session's with session).
func (m *Model) openChange(id string, session bool) tea.Cmd {
	if !session && (m.sess == nil || m.sess.Plan == nil || m.sess.Plan.Feature(id) == nil) {
		m.note = infoNote("select a feature to see its change")
		return nil
	}
	c := m.newChange(ops.DiffRequest{Feature: id, Session: session})
	title := "Change of " + id
	if session {
		title = "The session's change"
	}
	m.push(&changeDialog{dialogBase: dialogBase{seq: m.sessSeq()}, title: title, change: c}, false)
	return m.loadChange(c)
}

// changeHeight is the rows a change gets in a dialog with other lines
// above it: the screen less the session bar, the dialog's frame and hints,
// the key bar and a few rows of the panes.
func changeHeight(m *Model, other int) int {
	return max(4, m.h-sessionBarH-2-1-1-other-3)
}

// noteMsg sets the note line from a command's result.
type noteMsg struct{ note note }
