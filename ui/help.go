package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/ui/cmdline"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// helpState is the full help (?): where it is scrolled to, its filter, the
// mode it was opened from, and its lines for the current size and filter
// (made by refreshHelp, which relayout calls at the end of every Update;
// View only slices them).
type helpState struct {
	off    int
	filter textinput.Model
	// typing: the filter has the keys (/, or a key the help does not bind).
	typing bool
	from   mode
	lines  []string
	// body is how many lines the box shows.
	body int
}

// openHelp shows the help over whatever is open; from is the text field
// (mode) it goes back to.
func (m *Model) openHelp(from mode) {
	m.mode = modeHelp
	m.hlp.off, m.hlp.from, m.hlp.typing = 0, from, false
	if m.hlp.filter.Prompt == "" {
		m.hlp.filter = textinput.New()
		m.hlp.filter.Prompt = "/"
		m.hlp.filter.Placeholder = "type to filter the keys"
	}
	m.hlp.filter.SetStyles(m.th.Input())
	m.hlp.filter.SetValue("")
	m.hlp.filter.Blur()
}

// closeHelp goes back to what the help was opened over.
func (m *Model) closeHelp() {
	m.mode, m.hlp.from = m.hlp.from, modeNormal
	m.hlp.typing = false
	m.hlp.filter.Blur()
	if m.mode == modeNormal && m.focus == layout.Recall {
		m.mode = modeRecall
	}
}

// helpKey scrolls and filters the help. Keys the help does not bind start
// the filter with themselves (type to filter, as in k9s); in the filter
// every printable key is text and the arrows scroll. help, back and quit
// close it (quit quits: it works from anywhere).
func (m *Model) helpKey(k tea.KeyPressMsg) tea.Cmd {
	if m.hlp.typing {
		a, _ := m.textAction(k, m.helpFilterKeyMap().actions()...)
		switch a {
		case keys.Open:
			m.hlp.typing = false // keep the filter; j/k scroll again
			m.hlp.filter.Blur()
		case keys.Back:
			m.clearHelpFilter()
		case keys.Up, keys.Down, keys.PageDown, keys.PageUp:
			m.scrollHelp(a)
		case keys.Quit:
			return m.quit()
		case keys.Help:
			m.closeHelp()
			return m.openWaiting()
		default:
			var cmd tea.Cmd
			m.hlp.filter, cmd = m.hlp.filter.Update(k)
			m.hlp.off = 0
			return cmd
		}
		return nil
	}
	a, ok := m.keys.Which(k, m.helpKeyMap().actions()...)
	if !ok {
		if printable(k) {
			m.hlp.typing = true
			m.hlp.filter.SetValue(m.hlp.filter.Value() + k.Text)
			m.hlp.filter.CursorEnd()
			m.hlp.off = 0
			return m.hlp.filter.Focus()
		}
		return nil
	}
	switch a {
	case keys.Filter:
		m.hlp.typing = true
		m.hlp.filter.CursorEnd()
		return m.hlp.filter.Focus()
	case keys.Back:
		if m.hlp.filter.Value() != "" {
			m.clearHelpFilter()
			return nil
		}
		m.closeHelp()
		return m.openWaiting()
	case keys.Help:
		m.closeHelp()
		return m.openWaiting()
	case keys.Quit:
		return m.quit()
	}
	m.scrollHelp(a)
	return nil
}

// helpPaste types a paste into the help's filter, starting it as a key
// the help does not bind does; never into a field under the help.
func (m *Model) helpPaste(msg tea.PasteMsg) tea.Cmd {
	m.hlp.typing, m.hlp.off = true, 0
	focus := m.hlp.filter.Focus()
	var cmd tea.Cmd
	m.hlp.filter, cmd = m.hlp.filter.Update(msg)
	return tea.Batch(focus, cmd)
}

func (m *Model) clearHelpFilter() {
	m.hlp.typing = false
	m.hlp.filter.SetValue("")
	m.hlp.filter.Blur()
	m.hlp.off = 0
}

func (m *Model) scrollHelp(a keys.Action) {
	page := max(1, m.hlp.body-1)
	switch a {
	case keys.Up:
		m.hlp.off--
	case keys.Down:
		m.hlp.off++
	case keys.PageDown:
		m.hlp.off += page
	case keys.PageUp:
		m.hlp.off -= page
	case keys.Top:
		m.hlp.off = 0
	case keys.Bottom:
		m.hlp.off = len(m.hlp.lines)
	}
}

// helpKeyMap: the help scrolls like a pane; / filters.
func (m *Model) helpKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Down, keys.Filter, keys.Back},
		[]keys.Action{keys.Up, keys.Down, keys.PageDown, keys.PageUp, keys.Top, keys.Bottom, keys.Filter, keys.Back, keys.Help, keys.Quit})
	k.desc = map[keys.Action]string{keys.Down: "scroll", keys.Filter: "filter (or just type)", keys.Back: "close"}
	k.label = map[keys.Action]string{keys.Down: m.keyName(keys.Down) + "/" + m.keyName(keys.Up)}
	if m.hlp.filter.Value() != "" {
		k.desc[keys.Back] = "clear the filter"
	}
	return k
}

// helpFilterKeyMap: the help's filter is a text field.
func (m *Model) helpFilterKeyMap() keyMap {
	k := m.keyMapOf([]keys.Action{keys.Down, keys.Open, keys.Back},
		[]keys.Action{keys.Up, keys.Down, keys.PageDown, keys.PageUp, keys.Open, keys.Back, keys.Quit, keys.Help})
	k.desc = map[keys.Action]string{keys.Down: "scroll", keys.Open: "keep", keys.Back: "clear"}
	return k
}

// helpGroup is one titled section of the full help: a context and its keys.
// In a text field (text) only the keys that type nothing act, so only
// those are listed.
type helpGroup struct {
	title string
	keys  keyMap
	text  bool
}

// helpGroups are the contexts, each from its own key map, so the help
// always shows the user's own bindings.
func (m *Model) helpGroups() []helpGroup {
	review := &reviewDialog{}
	decision := m.keyMapOf(nil, []keys.Action{keys.Choose, keys.Open, keys.NextField, keys.PrevField, keys.Left, keys.Right, keys.PageDown, keys.PageUp, keys.Back})
	decision.desc = map[keys.Action]string{keys.Choose: "an option (on the options row; in a field digits are typed)",
		keys.Open: "send (with options: on to them)", keys.Back: "later (open in the flow pane answers it)"}
	// A pane's own keys, without the moves every list pane shares.
	own := func(p layout.Pane) keyMap {
		k := m.paneKeyMap(p)
		own := m.keyMapOf(nil, k.full[1:]...)
		own.desc = k.desc
		return own
	}
	field := func(name string, a keys.Action) string {
		return name + " (" + m.keyName(a) + ") · a text field: letters, j and k are typed"
	}
	filter := m.keyMapOf(nil, []keys.Action{keys.Up, keys.Down, keys.Open, keys.Back})
	filter.desc = map[keys.Action]string{keys.Up: "move in the features", keys.Down: "move in the features", keys.Open: "keep the filter", keys.Back: "clear it"}
	search := m.searchKeyMap()
	search.desc = map[keys.Action]string{keys.Open: "search (then " + m.keyName(keys.SearchNext) + "/" + m.keyName(keys.SearchPrev) + " move between matches)", keys.Back: "cancel"}
	command := m.keyMapOf(nil, []keys.Action{keys.Open, keys.Complete, keys.Up, keys.Down, keys.Back})
	command.desc = map[keys.Action]string{keys.Open: "run", keys.Up: "earlier line", keys.Down: "later line", keys.Back: "close"}
	return []helpGroup{
		{title: "Global", keys: m.keyMapOf(nil, globalKeys)},
		{title: "Move (every pane)", keys: m.keyMapOf(nil, moveKeys)},
		{title: "Features · graph · detail", keys: own(layout.Features)},
		{title: "Runs", keys: own(layout.Runs)},
		{title: "Output", keys: own(layout.Output)},
		{title: "Flow", keys: own(layout.Flow)},
		{title: "Agents", keys: own(layout.Agents)},
		{title: field("Recall", keys.Recall), keys: m.recallKeyMap(), text: true},
		{title: field("Features filter", keys.Filter), keys: filter, text: true},
		{title: field("Output search", keys.Filter), keys: search, text: true},
		{title: field("Command line", keys.Command), keys: command, text: true},
		{title: "Review dialog", keys: review.KeyMap(m)},
		{title: "Confirmation", keys: m.keyMapOf([]keys.Action{keys.Yes, keys.No, keys.Back})},
		{title: "Decision · form dialog (its fields are text fields)", keys: decision},
	}
}

// helpEntry is one line of the help before rendering: a key and what it
// does, or (cmd) a command line's usage.
type helpEntry struct {
	b   key.Binding
	cmd string
}

func (e helpEntry) text() string {
	if e.cmd != "" {
		return e.cmd
	}
	return e.b.Help().Key + " " + e.b.Help().Desc
}

// matches reports whether every word of q is in the entry or its
// section's title (case folded).
func matches(q, title string, e helpEntry) bool {
	hay := strings.ToLower(title + " " + e.text())
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// refreshHelp makes the help's lines for the current size and filter and
// keeps the scroll offset inside them: relayout calls it at the end of
// every Update, whatever changed them (a key, a paste, a resize).
func (m *Model) refreshHelp() {
	if m.mode != modeHelp || m.w <= 0 {
		return
	}
	r := m.helpRect()
	m.hlp.body = max(0, r.H-2)
	if m.hlp.typing || m.hlp.filter.Value() != "" {
		m.hlp.body = max(0, m.hlp.body-1) // the filter's own line
	}
	m.hlp.filter.SetWidth(max(1, r.W-6)) // inside the frame, after the prompt and cursor
	m.hlp.lines = m.helpLines(r.W, m.hlp.body, m.hlp.filter.Value())
	m.hlp.off = max(0, min(m.hlp.off, len(m.hlp.lines)-m.hlp.body))
}

// helpLines is the full help's text, before boxing and scrolling: only
// what matches q when q is not empty.
func (m *Model) helpLines(w, h int, q string) []string {
	th := m.th
	groups := m.helpGroups()
	flat := make([][]helpEntry, len(groups))
	colW := 0
	for i, g := range groups {
		seen := map[string]bool{}
		for _, col := range g.keys.FullHelp() {
			if g.text {
				col = keys.TextOnly(col)
			}
			for _, b := range col {
				e := helpEntry{b: b}
				if id := e.text(); !seen[id] && matches(q, g.title, e) {
					seen[id] = true
					flat[i] = append(flat[i], e)
					colW = max(colW, layout.Width(b.Help().Key))
				}
			}
		}
	}
	var lines []string
	for i, g := range groups {
		if len(flat[i]) == 0 {
			continue
		}
		lines = append(lines, " "+th.Bold.Render(g.title))
		// One column per group through bubbles/help, the keys padded to
		// one width so that every group's descriptions line up.
		col := make([]key.Binding, len(flat[i]))
		for j, e := range flat[i] {
			hp := e.b.Help()
			col[j] = key.NewBinding(key.WithKeys(e.b.Keys()...), key.WithHelp(layout.Fit(hp.Key, colW), " "+hp.Desc))
		}
		for _, l := range strings.Split(m.help.FullHelpView([][]key.Binding{col}), "\n") {
			lines = append(lines, "   "+strings.TrimRight(l, " ")) // help pads to the widest
		}
		lines = append(lines, "")
	}
	const cmdTitle = "Commands (:)"
	var cmds []string
	for _, sp := range cmdline.Specs {
		if matches(q, cmdTitle, helpEntry{cmd: sp.Usage}) {
			cmds = append(cmds, "   "+sp.Usage)
		}
	}
	if len(cmds) > 0 {
		lines = append(append(lines, " "+th.Bold.Render(cmdTitle)), cmds...)
	}
	if q != "" {
		if len(lines) == 0 {
			return []string{th.Dim.Render(fmt.Sprintf(" no key or command matches %q · %s clears the filter", q, m.keyName(keys.Back)))}
		}
		return lines
	}
	note := func(s string) []string {
		var out []string
		for _, l := range layout.Wrap(s, max(10, w-3), "   ") {
			out = append(out, th.Dim.Render(" "+l))
		}
		return out
	}
	lines = append(append(lines, ""), note("in a text field every printable key is text ("+m.keyName(keys.Help)+" too): f1 opens this help, ctrl+c quits")...)
	source := "rebind keys in $XDG_CONFIG_HOME/flowdeck/config.toml, e.g. [keys] approve = [\"a\"]"
	if m.cfg.Path != "" {
		source = "keys from " + m.cfg.Path + " [keys]"
	}
	// Two columns when the screen is wide enough and one would scroll.
	if len(lines) > h && w >= 110 {
		lines = twoColumns(lines, (w-2)/2)
	}
	return append(append(lines, ""), note(source)...)
}

func twoColumns(lines []string, colw int) []string {
	half := (len(lines) + 1) / 2
	for half < len(lines) && lines[half-1] != "" {
		half++
	}
	left, right := lines[:half], lines[half:]
	merged := make([]string, max(len(left), len(right)))
	for i := range merged {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		merged[i] = layout.Fit(l, colw) + r
	}
	return merged
}

// helpRect is where the help is drawn.
func (m *Model) helpRect() layout.Rect {
	return layout.Rect{X: 0, Y: sessionBarH, W: m.w, H: m.h - sessionBarH - 1}
}

// helpPosition is the help's scroll position for its frame: the lines
// shown, of how many, and arrows where more is (↑ above, ↓ below).
func (m *Model) helpPosition() string {
	n, off, body := len(m.hlp.lines), m.hlp.off, m.hlp.body
	if n <= body || body <= 0 {
		return ""
	}
	arrows := ""
	if off > 0 {
		arrows += "↑"
	}
	if off+body < n {
		arrows += "↓"
	}
	return fmt.Sprintf(" %d–%d of %d %s ", off+1, min(n, off+body), n, arrows)
}

// helpView is the full help, boxed and scrolled, from the lines Update made.
func (m *Model) helpView(w, h int) []string {
	th := m.th
	lines := m.hlp.lines[min(m.hlp.off, len(m.hlp.lines)):]
	lines = lines[:min(len(lines), m.hlp.body)]
	if m.hlp.typing || m.hlp.filter.Value() != "" {
		lines = append([]string{" " + m.hlp.filter.View()}, lines...)
	}
	title := th.TitleFocused.Render(" Help ") + th.Dim.Render(" "+m.keyName(keys.Filter)+" filters · "+m.keyName(keys.Back)+" closes ")
	return layout.Box(th, title, th.Dim.Render(m.helpPosition()), lines, w, h, true)
}
