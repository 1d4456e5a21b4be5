package cmdline

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Result says what a key did to the line.
type Result int

// Results of HandleKey.
const (
	Editing Result = iota
	Submitted
	Cancelled
)

// Model is the command line: a text input, its history and the completion
// state. Keys inside it are fixed (enter, esc, tab, up, down) because it is a
// text field: letters must reach the text, never an action.
type Model struct {
	input   textinput.Model
	history []string
	hist    int
	draft   string
	cands   []string // completions offered by the last tab
	ci      int      // which of them is in the line
	tabbed  string   // the line right after the last tab, to detect a repeat
	err     string
	keys    Keys
}

// Keys are the line's bindings; the cockpit passes the user's. Only keys
// that type nothing can be bound: everything printable is text.
type Keys struct {
	Submit, Cancel, Complete, Prev, Next key.Binding
}

// DefaultKeys are the bindings without a config.
func DefaultKeys() Keys {
	return Keys{
		Submit:   key.NewBinding(key.WithKeys("enter")),
		Cancel:   key.NewBinding(key.WithKeys("esc")),
		Complete: key.NewBinding(key.WithKeys("tab")),
		Prev:     key.NewBinding(key.WithKeys("up")),
		Next:     key.NewBinding(key.WithKeys("down")),
	}
}

// SetKeys replaces the bindings.
func (m *Model) SetKeys(k Keys) { m.keys = k }

// New returns a closed command line.
func New() Model {
	in := textinput.New()
	in.Prompt = ":"
	in.Placeholder = "/flow-status  (tab completes, ↑↓ history, esc closes)"
	st := textinput.DefaultStyles(true)
	st.Cursor.Blink = false // a steady cursor keeps frames (and goldens) still
	in.SetStyles(st)        // until SetInputStyles gives the cockpit's
	return Model{input: in, keys: DefaultKeys()}
}

// Open focuses an empty line.
func (m *Model) Open() tea.Cmd {
	m.input.SetValue("")
	m.hist, m.draft, m.cands, m.tabbed, m.err = len(m.history), "", nil, "", ""
	return m.input.Focus()
}

// Close blurs the line.
func (m *Model) Close() { m.input.Blur() }

// Value is the current text.
func (m *Model) Value() string { return m.input.Value() }

// SetValue replaces the text (tests, re-opening after an error).
func (m *Model) SetValue(s string) { m.input.SetValue(s); m.input.CursorEnd() }

// SetError shows an inline error under the line until the next edit.
func (m *Model) SetError(e string) { m.err = e }

// Err is the inline error.
func (m *Model) Err() string { return m.err }

// Candidates are the completions offered by the last tab (for display).
func (m *Model) Candidates() []string { return m.cands }

// History is what was submitted, oldest first.
func (m *Model) History() []string { return m.history }

// HandleKey edits the line. On Submitted the line is returned and added to
// history.
func (m *Model) HandleKey(k tea.KeyPressMsg, pools Pools) (string, Result, tea.Cmd) {
	typed := k.Text != "" && k.Mod&^tea.ModShift == 0
	switch {
	case typed:
	case key.Matches(k, m.keys.Submit):
		line := strings.TrimSpace(m.input.Value())
		if line != "" && (len(m.history) == 0 || m.history[len(m.history)-1] != line) {
			m.history = append(m.history, line)
		}
		m.hist = len(m.history)
		return line, Submitted, nil
	case key.Matches(k, m.keys.Cancel):
		return "", Cancelled, nil
	case key.Matches(k, m.keys.Complete):
		m.complete(pools)
		return "", Editing, nil
	case key.Matches(k, m.keys.Prev):
		if m.hist > 0 {
			if m.hist == len(m.history) {
				m.draft = m.input.Value()
			}
			m.hist--
			m.SetValue(m.history[m.hist])
		}
		return "", Editing, nil
	case key.Matches(k, m.keys.Next):
		if m.hist < len(m.history) {
			m.hist++
			if m.hist == len(m.history) {
				m.SetValue(m.draft)
			} else {
				m.SetValue(m.history[m.hist])
			}
		}
		return "", Editing, nil
	}
	m.err, m.cands = "", nil
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return "", Editing, cmd
}

// Paste inserts pasted text.
func (m *Model) Paste(msg tea.PasteMsg) tea.Cmd {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// complete fills in the longest common prefix of the candidates; a repeated
// tab cycles through them.
func (m *Model) complete(pools Pools) {
	cur := m.input.Value()
	if len(m.cands) > 1 && cur == m.tabbed {
		m.ci = (m.ci + 1) % len(m.cands)
		m.SetValue(m.cands[m.ci])
		m.tabbed = m.input.Value()
		return
	}
	c := Complete(cur, pools)
	m.cands, m.ci = c, -1
	switch len(c) {
	case 0:
		m.err = "no completion"
	case 1:
		m.SetValue(c[0])
		m.cands = nil
	default:
		if p := commonPrefix(c); len(p) > len(cur) {
			m.SetValue(p)
		}
	}
	m.tabbed = m.input.Value()
}

// SetWidth sets the line's width in cells.
// SetInputStyles styles the text field (the cockpit's Styles.Input).
func (m *Model) SetInputStyles(st textinput.Styles) { m.input.SetStyles(st) }

func (m *Model) SetWidth(w int) { m.input.SetWidth(max(1, w-2)) }

// View draws the line (one row) in width w.
func (m *Model) View(w int) string { return layout.Fit(m.input.View(), w) }

// Notes is the row under the line: an error, or the completions offered.
func (m *Model) Notes(th *styles.Styles, w int) string {
	switch {
	case m.err != "":
		return layout.Fit(th.Err.Render("✗ "+m.err), w)
	case len(m.cands) > 1:
		words := make([]string, len(m.cands))
		for i, c := range m.cands {
			f := strings.Fields(c)
			words[i] = f[len(f)-1]
			if i == m.ci {
				words[i] = th.Bold.Render(words[i])
			}
		}
		return layout.Fit(th.Dim.Render("tab: ")+strings.Join(words, "  "), w)
	}
	return layout.Fit(th.Dim.Render(usageHint(m.input.Value())), w)
}

func usageHint(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "commands: " + strings.Join(names(), " ")
	}
	name := f[0]
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if u := UsageOf(name); u != "" {
		return "usage: " + u
	}
	return ""
}
