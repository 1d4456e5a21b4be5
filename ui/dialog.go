package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// Dialog is a box the cockpit shows above the key bar: a review, the
// findings of one, a confirmation, a flow's decision or form, the quit
// question. Dialogs live on a stack (the top one is shown and gets the
// keys); a dialog reads the model to draw, and says what to do through the
// commands it returns. None does I/O itself.
type Dialog interface {
	// ID names the dialog: opening one with the same ID replaces it.
	ID() string
	Title(m *Model) string
	// Body is the lines inside the box, above the key hints.
	Body(m *Model) []string
	// KeyMap is the dialog's own bindings, for the hint line and the help.
	KeyMap(m *Model) keyMap
	// HandleKey acts on a key; handled false hands it to the global keys
	// (help, quit, the panes).
	HandleKey(m *Model, k tea.KeyPressMsg) (cmd tea.Cmd, handled bool)
	// Typing reports whether a text field has the keys; Unsent whether it
	// holds text that was not sent.
	Typing() bool
	Unsent() bool
	base() *dialogBase
}

// dialogBase is what every dialog has.
type dialogBase struct {
	// until: keys before this instant are ignored, so a keystroke meant
	// for something else cannot answer a dialog that just appeared.
	until   time.Time
	ignored int
	// seq is the session sequence the dialog was drawn from: its action
	// is refused (stale_decision) if what it decides changed since.
	seq uint64
	// waitKey is the wait the dialog answers; esc remembers it.
	waitKey string
}

func (b *dialogBase) base() *dialogBase { return b }
func (b *dialogBase) Typing() bool      { return false }
func (b *dialogBase) Unsent() bool      { return false }

// keyMap is a context's bindings (a pane, a mode, a dialog) as
// bubbles/help.KeyMap: the short list feeds the hint bar, the full list the
// help. The actions are resolved in the user's key map, so rebinding one
// changes dispatch, hints and help alike.
type keyMap struct {
	km    keys.Map
	short []keys.Action
	full  [][]keys.Action
	// desc says what a key does here when the action's name does not
	// (enter "send" in a form rather than "open"); label, which of its
	// keys do ("1–2" of 1–9).
	desc, label map[keys.Action]string
	// rank, when set, is the order in which the hint bar keeps short's
	// keys when not all fit (hintRank); else it drops from the end.
	rank []keys.Action
}

func (k keyMap) ShortHelp() []key.Binding { return k.bindings(k.short) }

func (k keyMap) FullHelp() [][]key.Binding {
	out := make([][]key.Binding, 0, len(k.full))
	for _, col := range k.full {
		out = append(out, k.bindings(col))
	}
	return out
}

func (k keyMap) bindings(acts []keys.Action) []key.Binding {
	out := make([]key.Binding, 0, len(acts))
	for _, a := range acts {
		bs := k.km.Bindings(a)
		if len(bs) == 0 {
			continue
		}
		if d, ok := k.desc[a]; ok {
			bs[0].SetHelp(bs[0].Help().Key, d)
		}
		if l, ok := k.label[a]; ok {
			bs[0].SetHelp(l, bs[0].Help().Desc)
		}
		out = append(out, bs[0])
	}
	return out
}

// actions is every action of the map, for dispatch.
func (k keyMap) actions() []keys.Action {
	var out []keys.Action
	for _, col := range k.full {
		out = append(out, col...)
	}
	if len(out) == 0 {
		return k.short
	}
	return out
}

func (m *Model) keyMapOf(short []keys.Action, full ...[]keys.Action) keyMap {
	if len(full) == 0 {
		full = [][]keys.Action{short}
	}
	return keyMap{km: m.keys, short: short, full: full}
}

// top is the dialog shown, or nil.
func (m *Model) top() Dialog {
	if n := len(m.dialogs); n > 0 {
		return m.dialogs[n-1]
	}
	return nil
}

// push opens d on top (replacing one with its ID) and gives it the keys.
// auto arms the grace period: the dialog appeared by itself.
func (m *Model) push(d Dialog, auto bool) {
	m.drop(d.ID())
	if auto {
		d.base().until = m.now().Add(m.grace)
	}
	m.dialogs = append(m.dialogs, d)
	m.docked = false
}

// drop removes the dialog with this ID, wherever it is in the stack.
func (m *Model) drop(id string) {
	for i, d := range m.dialogs {
		if d.ID() == id {
			m.dialogs = append(m.dialogs[:i:i], m.dialogs[i+1:]...)
			return
		}
	}
}

// pop closes the top dialog; the one under it (if any) shows again.
func (m *Model) pop() {
	if n := len(m.dialogs); n > 0 {
		m.dialogs = m.dialogs[:n-1]
	}
}

// dialogKey hands a key to the focused dialog; what it does not handle goes
// to the keys that work everywhere: help, quit, and the panes (which dock
// the dialog: it stays on screen, and focus_dialog comes back to it).
func (m *Model) dialogKey(d Dialog, k tea.KeyPressMsg) tea.Cmd {
	b := d.base()
	if m.now().Before(b.until) {
		b.ignored++
		return nil
	}
	if cmd, handled := d.HandleKey(m, k); handled {
		return cmd
	}
	if d.Typing() && printable(k) {
		return nil
	}
	a, ok := m.keys.Which(k, keys.Help, keys.Quit, keys.NextPane, keys.PrevPane,
		keys.Pane1, keys.Pane2, keys.Pane3, keys.Pane4, keys.Pane5, keys.Pane6, keys.Pane7, keys.Pane8)
	if !ok {
		return nil
	}
	switch a {
	case keys.Help:
		m.openHelp(modeNormal)
		return nil
	case keys.Quit:
		return m.quit()
	}
	m.docked = true
	return m.normalKey(k)
}

// dialogView draws the top dialog as a box of full width, at most maxH
// rows: its body (cut from the bottom when it does not fit), then its key
// hints, which always show. A docked dialog is drawn unfocused.
func (m *Model) dialogView(d Dialog, maxH int) []string {
	th := m.th
	var body []string
	for _, l := range d.Body(m) {
		body = append(body, " "+l)
	}
	hint := m.bindingHints(m.w-4, d.KeyMap(m).ShortHelp()...)
	if m.docked {
		hint = m.hintsIn(m.w-4, keys.FocusDialog) + th.Dim.Render(" · it waits while you look around")
	} else if m.now().Before(d.base().until) {
		hint += "  " + th.Dim.Render("(just appeared: keys wait a moment)")
	}
	if room := max(1, maxH-3); len(body) > room {
		body = body[:room]
	}
	body = append(body, " "+hint)
	return layout.Box(th, th.DialogTitle.Render(" "+d.Title(m)+" "), "", body, m.w, len(body)+2, !m.docked)
}

// paster is a dialog with a text field that takes pasted text.
type paster interface {
	paste(tea.PasteMsg) tea.Cmd
}

func pasteInto(d Dialog, msg tea.PasteMsg) tea.Cmd {
	if p, ok := d.(paster); ok && d.Typing() {
		return p.paste(msg)
	}
	return nil
}

func (d *findingsDialog) paste(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return cmd
}

func (d *decisionDialog) paste(msg tea.PasteMsg) tea.Cmd {
	f := d.f
	var cmd tea.Cmd
	if f.focus == len(f.fields) {
		f.note, cmd = f.note.Update(msg)
	} else {
		f.fields[f.focus].in, cmd = f.fields[f.focus].in.Update(msg)
	}
	return cmd
}

// focusDialog gives the keys back to the docked dialog.
func (m *Model) focusDialog() {
	if m.top() == nil {
		m.note = infoNote("no dialog is open")
		return
	}
	m.docked = false
}

// unsent reports whether a text field holds something not yet sent.
func (m *Model) unsent() bool {
	for _, d := range m.dialogs {
		if d.Unsent() {
			return true
		}
	}
	switch m.mode {
	case modeCommand:
		return m.cmdline.Value() != ""
	case modeSearch:
		return m.search.Value() != "" && m.search.Value() != m.output.Query()
	}
	return false
}
