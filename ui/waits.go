package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// wait is something that waits for the person: a feature review, the final
// review, a blocked session, or a flow's pending decision. What waits, its
// key and its label are computed in ops (ops.Waits), which the fleet's
// glance shares: the cockpit adds the dialogs, the bell and the title.
type wait = ops.Wait

// The kinds of waits the cockpit opens dialogs for (ops.FleetWait*).
const (
	waitReview   = ops.FleetWaitReview
	waitFinal    = ops.FleetWaitFinal
	waitDecision = ops.FleetWaitDecision
)

// reasonMax bounds a blocked feature's reason where the cockpit shows it.
const reasonMax = ops.WaitReasonMax

// reviewName names the review a flow asks for on feature: the session's
// final review once the last feature's completion waits for it.
func (m *Model) reviewName(feature string) string { return ops.ReviewName(m.sess, feature) }

// waitLabel is how the session bar and the title name a wait: a flow's
// question by what it asks when that is known (the plan's approval, a
// review), else by its run and step.
func (m *Model) waitLabel(w wait) string { return w.Label }

// updateWaits recomputes what waits. When something new starts waiting the
// bell fires once (not on the first load: the person is looking already) and
// a review opens its prompt. A decision prompt opens whenever none is open
// and a decision waits that the person has not put off (esc).
func (m *Model) updateWaits(first bool) tea.Cmd {
	m.waits = ops.Waits(m.sess, m.decisions, m.flowRuns)
	m.closeStalePrompt()
	keys := make(map[string]bool, len(m.waits))
	var fresh []wait
	for _, w := range m.waits {
		if w.Kind == waitReview && m.verifying(w.Feature) {
			// The cockpit is still running this feature's verification:
			// its review waits for the last command. Left unseen, it rings
			// and prompts on the reload after the job.
			continue
		}
		keys[w.Key] = true
		if !m.waitKeys[w.Key] {
			fresh = append(fresh, w)
		}
	}
	m.waitKeys = keys
	var cmds []tea.Cmd
	if len(fresh) > 0 && !first {
		cmds = append(cmds, m.bell(fresh[0]))
	}
	return tea.Batch(append(cmds, m.openWaiting())...)
}

// openWaiting opens the dialog of the first thing that waits and that the
// person has not put off (esc): a review, else a decision. It never opens
// while the person types (the keys are theirs); leaving the text field
// calls it again.
func (m *Model) openWaiting() tea.Cmd {
	if m.top() != nil || m.typing() || m.mode == modeHelp {
		return nil
	}
	for _, w := range m.waits {
		if (w.Kind == waitReview || w.Kind == waitFinal) && !m.dismissed[w.Key] && m.waitKeys[w.Key] {
			return m.openReviewPrompt(w, true)
		}
	}
	for _, w := range m.waits {
		if w.Kind == waitDecision && !m.dismissed[w.Key] && !m.answering[w.Decision.ID] {
			return m.openDecisionPrompt(*w.Decision, true)
		}
	}
	return nil
}

// closeStalePrompt closes a dialog whose wait was resolved elsewhere (a
// review recorded by another process, the feature completed, reset or
// blocked, the session completed; a decision answered, expired or
// cancelled), with a one-line notice of who resolved it and how. A decision
// prompt showing why its answer was refused stays.
func (m *Model) closeStalePrompt() {
	for _, d := range append([]Dialog(nil), m.dialogs...) {
		switch d := d.(type) {
		case *reviewDialog, *findingsDialog:
			b := d.base()
			if b.waitKey == "" || m.hasWait(b.waitKey) {
				continue
			}
			m.drop(d.ID())
			feature, final := reviewSubject(d)
			m.note = infoNote(m.resolvedBy(feature, final, b.seq))
		case *decisionDialog:
			if d.f.refused || d.f.sending || m.answering[d.f.d.ID] || pendingIn(m.decisions, d.f.d.ID) {
				continue
			}
			m.drop(d.ID())
			m.note = infoNote(goneText(d.f.d.ID, m.gone))
		}
	}
}

func reviewSubject(d Dialog) (string, bool) {
	switch d := d.(type) {
	case *reviewDialog:
		return d.feature, d.final
	case *findingsDialog:
		return d.feature, d.final
	}
	return "", false
}

func (m *Model) hasWait(key string) bool {
	for _, w := range m.waits {
		if w.Key == key {
			return true
		}
	}
	return false
}

// resolvedBy names the change that ended a review prompt's wait: the
// latest history item since the prompt was drawn that concerns it.
func (m *Model) resolvedBy(feature string, final bool, seq uint64) string {
	what := "review " + feature
	if final {
		what = "final review"
	}
	if m.sess != nil {
		h := m.sess.Execution.History
		for i := len(h) - 1; i >= 0 && h[i].Seq > seq; i-- {
			if final || h[i].Feature == feature || h[i].Feature == "" && h[i].Type != model.EventNoteAdded {
				return fmt.Sprintf("%s closed: %s (by %s at %s)", what, h[i].Summary, model.ByText(h[i].Actor, h[i].Via), h[i].At.UTC().Format("15:04:05"))
			}
		}
	}
	return what + " closed: it no longer waits (changed elsewhere)"
}

// goneText says how a decision stopped waiting, from its stored record.
func goneText(id string, d *model.Decision) string {
	switch {
	case d == nil || d.ID != id:
		return "decision " + id + " no longer waits: it was answered elsewhere, expired or its run ended"
	case d.Resolution != nil && d.Resolution.Timeout:
		return "decision " + id + " timed out: it took " + d.Resolution.Option
	case d.Resolution != nil:
		how := d.Resolution.Option
		if how == "" {
			how = "answered"
		}
		return fmt.Sprintf("decision %s closed: %s by %s at %s", id, how, model.ByText(d.Resolution.Actor, d.Resolution.Via), d.Resolution.At.UTC().Format("15:04:05"))
	}
	return "decision " + id + " closed: " + string(d.Status)
}

// bell notifies once, the way the config says.
func (m *Model) bell(w wait) tea.Cmd {
	seq := Notification(m.cfg.Bell, "flowdeck", m.waitName(w))
	if seq == "" {
		return nil
	}
	m.bells++
	return tea.Raw(seq)
}

// oscSafe drops what could end or break an OSC string: every sequence,
// control and bidi character (termtext), then the separator.
func oscSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == ';' {
			return ' '
		}
		return r
	}, termtext.Line(s))
}

// title is the terminal title: what waits first, else progress.
func (m *Model) title() string {
	if len(m.waits) > 0 {
		parts := make([]string, 0, len(m.waits))
		for _, w := range m.waits {
			parts = append(parts, m.waitName(w))
		}
		return "⚑ flowdeck: " + strings.Join(parts, ", ")
	}
	s := m.sess
	if s == nil {
		return "flowdeck: no session"
	}
	t := "flowdeck: " + string(s.Status)
	if s.Plan != nil {
		t += fmt.Sprintf(" %d/%d done", s.Plan.CompletedCount(), s.Plan.Required())
	}
	if a := activeText(s); a != "" {
		t += " · " + a
	}
	return t
}
