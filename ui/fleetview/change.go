package fleetview

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/panes/diffview"
)

// The change of a queue item: the project's diff of the feature (the diff
// tool, through fleet.Diff), drawn by the cockpit's diff viewer with its
// keys. It is read and parsed in a command; a project that does not offer
// it (an old flowdeck, no git) says why in its place.

// changeView is one change inside a dialog.
type changeView struct {
	id      int // which load a diffMsg answers
	loaded  bool
	problem string   // why there is no diff
	plain   []string // the text, when it is not a diff
	files   int
	view    *diffview.Model
}

// diffMsg is a loaded change.
type diffMsg struct {
	id      int
	diff    *diffview.Diff
	plain   []string
	problem string
}

// highlightMsg asks the shown change to highlight more of its screen.
type highlightMsg struct{ id int }

const highlightTick = 15 * time.Millisecond

// maxPlainLines bounds what is kept of a text that is not a diff.
const maxPlainLines = 500

func (m *Model) newChange() *changeView {
	m.dialogSeq++
	return &changeView{id: m.dialogSeq, view: diffview.New(m.th)}
}

// loadChange reads and parses the item's change in a command.
func (m *Model) loadChange(c *changeView, it fleet.Item) tea.Cmd {
	f, id := m.f, c.id
	feature := it.Wait.Feature
	if it.Wait.Kind == ops.FleetWaitFinal {
		feature = "" // the final review decides on the session's whole change
	}
	return func() tea.Msg {
		text, err := f.Diff(context.Background(), it.Project, feature)
		if err != nil {
			return diffMsg{id: id, problem: it.Project + " gave no change: " + err.Error()}
		}
		return parseChange(id, text)
	}
}

// parseChange reads the diff tool's text: the JSON of ops.DiffResult (its
// patch, or its refusal), or a patch itself, or other text shown as is.
func parseChange(id int, text string) diffMsg {
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		var r ops.DiffResult
		if json.Unmarshal([]byte(text), &r) == nil {
			if r.Error != nil {
				return diffMsg{id: id, problem: fmt.Sprintf("no change (%s): %s", r.Error.Code, r.Error.Message)}
			}
			text = r.Patch
			if r.Patch == "" && len(r.Files) == 0 {
				return diffMsg{id: id, diff: &diffview.Diff{}}
			}
		}
	}
	d := diffview.Parse([]byte(text))
	if len(d.Files) > 0 || strings.TrimSpace(text) == "" {
		return diffMsg{id: id, diff: d}
	}
	var plain []string
	for _, l := range strings.Split(strings.TrimRight(termtext.String(text), "\n"), "\n") {
		if len(plain) == maxPlainLines {
			break
		}
		plain = append(plain, l)
	}
	return diffMsg{id: id, plain: plain}
}

func (m *Model) changeOf(id int) *changeView {
	for _, d := range m.dialogs {
		if c := d.base().change; c != nil && c.id == id {
			return c
		}
	}
	return nil
}

func (m *Model) onDiff(msg diffMsg) tea.Cmd {
	c := m.changeOf(msg.id)
	if c == nil {
		return nil // its dialog closed meanwhile
	}
	c.loaded, c.problem, c.plain = true, msg.problem, msg.plain
	if msg.diff != nil {
		c.files = len(msg.diff.Files)
		c.view.SetDiff(msg.diff)
		c.view.ShowAll() // every file's header and diff; esc lists the files
		c.view.Top()
	}
	return m.highlightSoon()
}

// shownChange is the top dialog's change.
func (m *Model) shownChange() *changeView {
	if d := m.top(); d != nil && !m.helpOpen {
		return d.base().change
	}
	return nil
}

// highlightSoon schedules the next highlight step of the shown change:
// highlighting is spread over ticks so that no frame waits for it.
func (m *Model) highlightSoon() tea.Cmd {
	c := m.shownChange()
	if c == nil || !c.loaded || c.files == 0 || !c.view.Pending() {
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

// lines draws the change in w×h.
func (c *changeView) lines(m *Model, w, h int) []string {
	th := m.th
	switch {
	case !c.loaded:
		return []string{th.Dim.Render("reading the change…")}
	case c.problem != "":
		return []string{th.Warn.Render(termtext.Line(c.problem))}
	case c.plain != nil:
		return c.plain[:min(len(c.plain), max(1, h))]
	case c.files == 0:
		return []string{th.Dim.Render("no change since the feature started")}
	}
	c.view.SetSize(w, max(3, h))
	return c.view.View()
}

// changeKeys are the keys a change answers to.
var changeKeys = []keys.Action{keys.Up, keys.Down, keys.PageDown, keys.PageUp, keys.Top, keys.Bottom,
	keys.NextFile, keys.PrevFile, keys.Open}

// key moves in the change; handled reports whether a was one of its keys.
func (c *changeView) key(m *Model, a keys.Action) (tea.Cmd, bool) {
	if !c.loaded || c.files == 0 {
		return nil, false
	}
	if !ui.MoveInDiff(c.view, a) {
		return nil, false
	}
	return m.highlightSoon(), true
}

// back goes from a diff to the list of files; false when there is nothing
// to go back to (the dialog closes).
func (c *changeView) back() bool {
	return c.loaded && c.files > 0 && c.view.Back()
}

// shortKeys are the change's keys for a dialog's hints.
func (c *changeView) shortKeys() []keys.Action {
	if !c.loaded || c.files == 0 {
		return nil
	}
	if c.view.Mode() == diffview.ModeFile {
		return []keys.Action{keys.NextFile}
	}
	return []keys.Action{keys.Open, keys.NextFile}
}

// backDesc is what esc does in a dialog showing the change.
func (c *changeView) backDesc(closing string) string {
	if c.loaded && c.files > 0 && c.view.Mode() != diffview.ModeList {
		return "list files"
	}
	return closing
}
