package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// The hint bar (the last line) and the session bar's next step: what fits
// in the width, most important first, never a key or a command cut
// mid-word.

// nextKeys are the next commands the cockpit does with a key: the session's
// next step (model.NextCommand) by its prefix.
var nextKeys = []struct {
	prefix string
	a      keys.Action
}{
	{"flowdeck flow plan approve", keys.ApprovePlan},
	{"flowdeck flow review ", keys.Approve},
	{"flowdeck flow run start", keys.Start},
	{"flowdeck flow run complete ", keys.Complete1},
	{"flowdeck run --feature ", keys.Verify},
	{"flowdeck flows verify ", keys.Verify},
	{"flowdeck flow reset feature ", keys.Reset},
	{"flowdeck flow land", keys.Land},
}

// nextAction is the bound key action that does the next command, if one
// does.
func (m *Model) nextAction(cmd string) (keys.Action, bool) {
	for _, n := range nextKeys {
		if strings.HasPrefix(cmd, n.prefix) && m.keys.Get(n.a).Enabled() {
			return n.a, true
		}
	}
	return "", false
}

// nextLabel is what leads the next command: "next (KEY): ", or the command
// line's command, or "next: ".
func (m *Model) nextLabel(cmd string) (label, key string) {
	if a, ok := m.nextAction(cmd); ok {
		key = m.keyName(a)
	} else if strings.HasPrefix(cmd, "flowdeck flow plan apply") {
		key = ":/flow-apply FILE"
	}
	if key == "" {
		return m.th.Dim.Render("next: "), ""
	}
	return m.th.Dim.Render("next (") + m.th.KeyHint.Render(key) + m.th.Dim.Render("): "), key
}

// nextHint is the next command with the cockpit's way to do it: the key, or
// the command line's command.
func (m *Model) nextHint(cmd string) string {
	label, _ := m.nextLabel(cmd)
	return label + cmd
}

// nextHintIn is the next hint in w cells: whole; else its first words (at
// least three) and "…"; else only the key ("next: a"); else nothing. A
// command is never cut inside a word ("f…" says nothing).
func (m *Model) nextHintIn(cmd string, w int) string {
	if full := m.nextHint(cmd); layout.Width(full) <= w {
		return full
	}
	label, key := m.nextLabel(cmd)
	words := strings.Fields(cmd)
	for n := len(words) - 1; n >= min(3, len(words)); n-- {
		if s := label + strings.Join(words[:n], " ") + " …"; layout.Width(s) <= w {
			return s
		}
	}
	if s := m.th.Dim.Render("next: ") + m.th.KeyHint.Render(key); key != "" && layout.Width(s) <= w {
		return s
	}
	return ""
}

// hintRank is the order in which the hint bar keeps a pane's keys when
// they do not all fit: the key of the session's next step, then the
// decisions the demo and the README ask for, then moving around; the rest
// (filter, command line) drop first, ? lists them all.
func (m *Model) hintRank(km keyMap) []keys.Action {
	if km.rank == nil {
		return nil
	}
	var out []keys.Action
	if m.sess != nil {
		if a, ok := m.nextAction(model.NextCommand(m.sess)); ok {
			out = append(out, a)
		}
	}
	return append(out, km.rank...)
}

// ranked is km's short list in its order, less the lowest ranked keys
// until render(list) fits in w.
func (m *Model) ranked(km keyMap, w int, render func([]keys.Action) string) []keys.Action {
	acts := slices.Clone(km.short)
	rank := m.hintRank(km)
	for len(acts) > 0 && layout.Width(render(acts)) > w {
		worst := len(acts) - 1 // unranked, or no rank: the last shown
		if rank != nil {
			worstAt := -1
			for i, a := range acts {
				at := slices.Index(rank, a)
				if at < 0 {
					at = len(rank) + i
				}
				if at > worstAt {
					worst, worstAt = i, at
				}
			}
		}
		acts = slices.Delete(acts, worst, worst+1)
	}
	return acts
}

// hintBar is the one-line key help of whatever has the keys (a pane, a text
// field, a dialog), from its key map: the same bindings that dispatch. Help
// and quit are always shown; in a text field by the keys that type nothing.
// What does not fit drops by the context's rank, least important first.
func (m *Model) hintBar() string {
	km, lead := m.contextKeyMap()
	var extra []key.Binding // before the context's own keys
	ownKeys := true
	if d := m.top(); d != nil && !m.docked && m.mode != modeHelp {
		// The dialog's own keys are in its box; the bar says how to look
		// around while it waits.
		ownKeys = false
		if !d.Typing() && !slices.Contains(d.KeyMap(m).actions(), keys.NextField) {
			extra = m.keys.Bindings(keys.NextPane)
			extra[0].SetHelp(extra[0].Help().Key, "look around (it waits)")
		}
	}
	typing := m.typing() || (m.top() != nil && !m.docked && m.top().Typing())
	if !typing {
		var first []keys.Action
		if m.top() != nil && m.docked {
			first = append(first, keys.FocusDialog)
		}
		if len(m.jobs) > 0 {
			// Something the cockpit started runs: how to stop it comes first.
			first = append(first, keys.Kill)
		}
		extra = append(m.keys.Bindings(first...), extra...)
	}
	tailBs := m.keys.Bindings(keys.Help, keys.Quit)
	if typing {
		tailBs = keys.TextOnly(tailBs)
	}
	tail := m.bindingHints(m.w, tailBs...)
	text := " "
	if lead != "" {
		text += m.th.Dim.Render(lead) + m.th.Dim.Render(" · ")
	}
	room := m.w - layout.Width(text) - layout.Width(tail) - 3
	shown := func(acts []keys.Action) []key.Binding {
		bs := slices.Clone(extra)
		if ownKeys {
			bs = append(bs, km.bindings(acts)...)
		}
		if typing {
			bs = keys.TextOnly(bs)
		}
		return bs
	}
	acts := m.ranked(km, room, func(acts []keys.Action) string { return m.bindingHints(1<<16, shown(acts)...) })
	if hints := m.bindingHints(room, shown(acts)...); hints != "" {
		text += hints + m.th.Dim.Render(" · ")
	}
	return layout.Fit(text+tail, m.w)
}

// hintsIn renders as many "key desc" pairs as fit in w cells.
func (m *Model) hintsIn(w int, acts ...keys.Action) string {
	return m.bindingHints(w, m.keys.Bindings(acts...)...)
}

// bindingHints renders as many "key desc" pairs of bs as fit in w cells.
func (m *Model) bindingHints(w int, bs ...key.Binding) string {
	return keys.Hints(m.help, w, bs...)
}
