// Package keys is the cockpit's one key map: the same bindings dispatch key
// presses, feed the hint bar and the full help, and are what the user rebinds
// in config.toml under [keys].
package keys

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// Action names a bound action; the names are the keys of the [keys] table in
// the config file.
type Action string

// The actions, by group.
const (
	Up       Action = "up"
	Down     Action = "down"
	Top      Action = "top"
	Bottom   Action = "bottom"
	PageDown Action = "page_down"
	PageUp   Action = "page_up"
	NextPane Action = "next_pane"
	PrevPane Action = "prev_pane"
	Pane1    Action = "pane_features"
	Pane2    Action = "pane_dag"
	Pane3    Action = "pane_detail"
	Pane4    Action = "pane_runs"
	Pane5    Action = "pane_output"
	Pane6    Action = "pane_recall"
	Pane7    Action = "pane_flow"
	Pane8    Action = "pane_agents"
	Open     Action = "open"
	Back     Action = "back"
	Filter   Action = "filter"
	Command  Action = "command"
	Help     Action = "help"
	Quit     Action = "quit"
	Mouse    Action = "mouse"

	Start        Action = "start"
	Verify       Action = "verify"
	Approve      Action = "approve"
	NeedsFix     Action = "needs_fix"
	Block        Action = "block"
	Reset        Action = "reset"
	ResetSession Action = "reset_session"

	Kill       Action = "kill"
	Follow     Action = "follow"
	Wrap       Action = "wrap"
	SearchNext Action = "search_next"
	SearchPrev Action = "search_prev"
	Recall     Action = "recall"

	PauseFlow  Action = "pause_flow"
	ResumeFlow Action = "resume_flow"
	CancelFlow Action = "cancel_flow"
	Reassign   Action = "reassign"

	Yes Action = "yes"
	No  Action = "no"

	FocusDialog Action = "focus_dialog"
	NextField   Action = "next_field"
	PrevField   Action = "prev_field"
	Left        Action = "left"
	Right       Action = "right"
	Choose      Action = "choose"
	Complete    Action = "complete"
	ShowAll     Action = "show_internal"
	ApprovePlan Action = "approve_plan"
	Complete1   Action = "complete_feature"
	// EditExternal opens a multi-line form field (a plan, findings) in
	// $VISUAL/$EDITOR.
	EditExternal Action = "edit_in_editor"
	Land         Action = "land"
	// The change (a feature's diff): shown from any pane, and inside the
	// review dialog.
	ShowDiff Action = "show_diff"
	EditAt   Action = "edit_at_change"
	Evidence Action = "toggle_evidence"
	NextFile Action = "next_file"
	PrevFile Action = "prev_file"
)

type def struct {
	action Action
	keys   []string
	desc   string
}

// defaults in help order. Keys that terminals and multiplexers take
// (ctrl+s, ctrl+q, ctrl+b, ctrl+p) are deliberately absent.
var defaults = []def{
	{Up, []string{"k", "up"}, "up"},
	{Down, []string{"j", "down"}, "down"},
	{Top, []string{"g", "home"}, "top"},
	{Bottom, []string{"G", "end"}, "bottom"},
	{PageDown, []string{"ctrl+d", "pgdown"}, "page down"},
	{PageUp, []string{"ctrl+u", "pgup"}, "page up"},
	{NextPane, []string{"tab"}, "next pane"},
	{PrevPane, []string{"shift+tab"}, "previous pane"},
	{Pane1, []string{"1"}, "features"},
	{Pane2, []string{"2"}, "graph"},
	{Pane3, []string{"3"}, "detail"},
	{Pane4, []string{"4"}, "runs"},
	{Pane5, []string{"5"}, "output"},
	{Pane6, []string{"6"}, "recall"},
	{Pane7, []string{"7"}, "flow"},
	{Pane8, []string{"8"}, "agents"},
	{Open, []string{"enter"}, "open"},
	{Back, []string{"esc"}, "back"},
	{Filter, []string{"/"}, "filter/search"},
	{Command, []string{":"}, "command line"},
	{Help, []string{"?", "f1"}, "help"},
	{Quit, []string{"q", "ctrl+c"}, "quit"},
	{Mouse, []string{"m"}, "mouse on/off"},
	{Land, []string{"L"}, "land the session"},
	{ShowDiff, []string{"d"}, "show the change"},

	{Start, []string{"s"}, "start"},
	{Verify, []string{"v"}, "verify"},
	{Approve, []string{"a"}, "approve"},
	{NeedsFix, []string{"x"}, "needs fix"},
	{Block, []string{"b"}, "block"},
	{Reset, []string{"r"}, "reset"},
	{ResetSession, []string{"R"}, "reset session"},
	{ApprovePlan, []string{"P"}, "approve the plan"},
	{Complete1, []string{"C"}, "complete feature"},

	{Kill, []string{"K"}, "stop run"},
	{Follow, []string{"f"}, "follow"},
	{Wrap, []string{"w"}, "wrap"},
	{SearchNext, []string{"n"}, "next match"},
	{SearchPrev, []string{"N"}, "previous match"},
	{Recall, []string{"ctrl+f"}, "recall search"},

	{PauseFlow, []string{"p"}, "pause flow"},
	{ResumeFlow, []string{"u"}, "resume flow"},
	{CancelFlow, []string{"c"}, "cancel flow"},
	{Reassign, []string{"A"}, "reassign"},

	{Yes, []string{"y"}, "yes"},
	{No, []string{"n"}, "no"},

	{FocusDialog, []string{"!"}, "back to the dialog"},
	{NextField, []string{"tab"}, "next field"},
	{PrevField, []string{"shift+tab"}, "previous field"},
	{Left, []string{"left"}, "previous choice"},
	{Right, []string{"right"}, "next choice"},
	{Choose, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "choose an option"},
	{EditExternal, []string{"ctrl+e"}, "edit in $EDITOR"},
	{Complete, []string{"tab"}, "complete"},
	{ShowAll, []string{"i"}, "show internal runs"},
	{EditAt, []string{"e"}, "edit at the change"},
	{Evidence, []string{"E"}, "evidence / change"},
	{NextFile, []string{"]"}, "next file"},
	{PrevFile, []string{"["}, "previous file"},
}

// Map holds the current binding of every action.
type Map struct {
	b map[Action]key.Binding
}

// Default returns the built-in key map.
func Default() Map {
	m := Map{b: make(map[Action]key.Binding, len(defaults))}
	for _, d := range defaults {
		m.b[d.action] = key.NewBinding(key.WithKeys(d.keys...), key.WithHelp(Label(d.keys), d.desc))
	}
	return m
}

// Get returns an action's binding.
func (m Map) Get(a Action) key.Binding { return m.b[a] }

// Matches reports whether a key press (its String()) triggers action a.
func (m Map) Matches(k fmt.Stringer, a Action) bool {
	b, ok := m.b[a]
	return ok && key.Matches(k, b)
}

// Which returns the first of the candidate actions that k triggers.
func (m Map) Which(k fmt.Stringer, candidates ...Action) (Action, bool) {
	for _, a := range candidates {
		if m.Matches(k, a) {
			return a, true
		}
	}
	return "", false
}

// Bindings returns the bindings of the given actions, for help views.
func (m Map) Bindings(actions ...Action) []key.Binding {
	out := make([]key.Binding, 0, len(actions))
	for _, a := range actions {
		if b, ok := m.b[a]; ok && b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// Rebind applies the user's [keys] table: action name -> keys. An empty list
// unbinds the action. Unknown names and unusable keys are returned as errors
// (and skipped); the rest still applies.
func (m Map) Rebind(table map[string][]string) (Map, []error) {
	out := Map{b: make(map[Action]key.Binding, len(m.b))}
	for a, b := range m.b {
		out.b[a] = b
	}
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		a := Action(name)
		b, ok := out.b[a]
		if !ok {
			errs = append(errs, fmt.Errorf("unknown action %q (known: %s)", name, strings.Join(actionNames(), ", ")))
			continue
		}
		ks := table[name]
		if len(ks) == 0 {
			b.Unbind()
			b.SetEnabled(false)
			out.b[a] = b
			continue
		}
		for i, k := range ks {
			ks[i] = strings.TrimSpace(k)
			if ks[i] == "" {
				errs = append(errs, fmt.Errorf("action %q: empty key", name))
			}
		}
		b.SetKeys(ks...)
		b.SetHelp(Label(ks), b.Help().Desc)
		b.SetEnabled(true)
		out.b[a] = b
	}
	return out, errs
}

func actionNames() []string {
	out := make([]string, len(defaults))
	for i, d := range defaults {
		out[i] = string(d.action)
	}
	return out
}

// Label is how keys read in help: arrows as symbols, joined by "/".
func Label(ks []string) string {
	if len(ks) == 9 && ks[0] == "1" && ks[8] == "9" {
		return "1–9"
	}
	parts := make([]string, 0, len(ks))
	for _, k := range ks {
		switch k {
		case "up":
			k = "↑"
		case "down":
			k = "↓"
		case "left":
			k = "←"
		case "right":
			k = "→"
		case "pgdown":
			k = "pgdn"
		}
		parts = append(parts, k)
	}
	return strings.Join(parts, "/")
}
