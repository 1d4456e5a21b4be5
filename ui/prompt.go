package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"flowdeck/model"
	"flowdeck/ui/keys"
	"flowdeck/ui/layout"
)

type promptKind int

const (
	promptReview   promptKind = iota // a / x / b on a review
	promptFindings                   // text input for needs_fix or blocked
	promptConfirm                    // y / n before a destructive action
	promptDecision                   // a flow's pending decision (decide.go)
)

// prompt is the modal box above the key bar. Only one is open at a time.
type prompt struct {
	kind  promptKind
	title string
	body  []string
	// extra are body lines shown only when the terminal is tall enough
	// (the feature's title, who recorded the evidence), keyed by their
	// index in body.
	extra    map[int]bool
	feature  string
	final    bool
	decision model.ReviewDecision
	action   model.Action   // promptConfirm: what y does
	yes      func() tea.Cmd // promptConfirm without an action
	label    string         // promptConfirm: what to say when it is done
	// until: keys before this instant are ignored, so a keystroke meant for
	// something else cannot answer a prompt that just appeared.
	until   time.Time
	ignored int
	waitKey string // the wait this prompt answers; esc remembers it
	// seq is the session sequence the prompt was drawn from: its action
	// is refused (stale_decision) if what it decides changed since.
	seq   uint64
	back  *prompt
	input textinput.Model
	dec   *decForm // promptDecision
}

// openReviewPrompt shows the review of w with its validation summary. auto
// is true when the prompt appeared by itself (a review started waiting),
// which arms the grace period.
func (m *Model) openReviewPrompt(w wait, auto bool) {
	p := &prompt{kind: promptReview, feature: w.feature, final: w.kind == "final", waitKey: w.key, seq: m.sessSeq()}
	if p.final {
		p.title = "Final review of the session"
	} else {
		p.title = "Review " + w.feature
	}
	p.body, p.extra = m.reviewSummary(w.feature, p.final)
	if auto {
		p.until = m.now().Add(m.grace)
	}
	m.prompt = p
}

// reviewSummary is what the person needs to decide: the evidence. The lines
// in extra may be left out on a short screen.
func (m *Model) reviewSummary(id string, final bool) (out []string, extra map[int]bool) {
	s := m.sess
	if s == nil || s.Plan == nil {
		return nil, nil
	}
	f := s.Plan.Feature(id)
	if f == nil {
		return nil, nil
	}
	extra = map[int]bool{}
	if f.Title != "" && f.Title != f.ID {
		extra[len(out)] = true
		out = append(out, f.Title)
	}
	ev := model.LatestEvidence(f)
	if final {
		ev = s.Execution.LastValidation
		out = append(out, fmt.Sprintf("All %s completed but this one; it waits for the final review.", model.ProgressText(s.Plan)))
	}
	if ev == nil {
		return append(out, "no validation evidence"), extra
	}
	line := fmt.Sprintf("validation: %s %s (%s) · %s", ev.Scope, ev.Status, ev.Source, ev.Command)
	out = append(out, line)
	if ev.Summary != "" {
		out = append(out, "  "+ev.Summary)
	}
	if ev.Actor != "" {
		extra[len(out)] = true
		out = append(out, fmt.Sprintf("  recorded by %s at %s", ev.Actor, ev.At.UTC().Format("2006-01-02 15:04")))
	}
	return out, extra
}

// promptRoomy is the height from which prompts show their extra lines; on a
// 24-line terminal the features list needs the rows more.
const promptRoomy = 30

// openFindings asks for the findings of a needs_fix or blocked review.
func (m *Model) openFindings(feature string, final bool, d model.ReviewDecision, back *prompt) tea.Cmd {
	in := textinput.New()
	in.Prompt = "findings: "
	in.Placeholder = "what must change (separate several with ;)"
	st := textinput.DefaultStyles(m.th.Dark)
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.SetWidth(max(10, m.w-16))
	what := feature
	if final {
		what = "the session (final review)"
	}
	verb := "Request changes to "
	if d == model.ReviewBlocked {
		verb = "Block "
	}
	seq, key := m.sessSeq(), ""
	if back != nil {
		seq, key = back.seq, back.waitKey
	} else if w, ok := m.waitFor(feature, final); ok {
		key = w.key
	}
	m.prompt = &prompt{kind: promptFindings, title: verb + what, feature: feature, final: final, decision: d, back: back, input: in, seq: seq, waitKey: key}
	return m.prompt.input.Focus()
}

// openConfirm asks y/n before a destructive action.
func (m *Model) openConfirm(title string, body []string, a model.Action, label string) {
	m.prompt = &prompt{kind: promptConfirm, title: title, body: body, action: a, label: label, seq: m.sessSeq()}
}

// openConfirmFunc asks y/n before yes runs.
func (m *Model) openConfirmFunc(title string, body []string, yes func() tea.Cmd) {
	m.prompt = &prompt{kind: promptConfirm, title: title, body: body, yes: yes, seq: m.sessSeq()}
}

// keyName is the first key bound to a, for messages.
func (m *Model) keyName(a keys.Action) string {
	ks := m.keys.Get(a).Keys()
	if len(ks) == 0 || !m.keys.Get(a).Enabled() {
		return "(" + string(a) + " is unbound)"
	}
	return keys.Label(ks[:1])
}

// promptKey handles a key while a prompt is open.
func (m *Model) promptKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.prompt
	if m.now().Before(p.until) {
		p.ignored++
		return nil
	}
	switch p.kind {
	case promptDecision:
		return m.decisionKey(k)
	case promptReview:
		a, ok := m.keys.Which(k, keys.Approve, keys.NeedsFix, keys.Block, keys.Back, keys.Quit)
		if !ok {
			return nil
		}
		switch a {
		case keys.Approve:
			m.prompt = nil
			return m.review(p.feature, p.final, model.ReviewApproved, nil, p.seq)
		case keys.NeedsFix:
			return m.openFindings(p.feature, p.final, model.ReviewNeedsFix, p)
		case keys.Block:
			return m.openFindings(p.feature, p.final, model.ReviewBlocked, p)
		case keys.Back:
			m.dismissed[p.waitKey] = true
			m.prompt = nil
		case keys.Quit:
			if k.String() == "ctrl+c" {
				return m.quit()
			}
		}
	case promptFindings:
		switch k.String() {
		case "enter":
			findings := splitFindings(p.input.Value())
			if p.decision == model.ReviewNeedsFix && len(findings) == 0 {
				p.ignored = 0
				p.body = []string{"needs_fix needs at least one finding"}
				return nil
			}
			m.prompt = nil
			return m.review(p.feature, p.final, p.decision, findings, p.seq)
		case "esc":
			m.prompt = p.back
			return nil
		case "ctrl+c":
			return m.quit()
		}
		var cmd tea.Cmd
		p.input, cmd = p.input.Update(k)
		return cmd
	case promptConfirm:
		a, ok := m.keys.Which(k, keys.Yes, keys.No, keys.Back)
		if !ok {
			return nil
		}
		m.prompt = nil
		if a == keys.Yes && p.yes != nil {
			return p.yes()
		}
		if a == keys.Yes {
			return m.doSeen(p.label, p.action, p.seq)
		}
		m.note = infoNote("cancelled")
	}
	return nil
}

func splitFindings(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ";") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// promptView draws the open prompt as a box of full width.
func (m *Model) promptView() []string {
	p := m.prompt
	th := m.th
	var body []string
	for i, b := range p.body {
		if p.extra[i] && m.h < promptRoomy {
			continue
		}
		body = append(body, " "+b)
	}
	var hint string
	title := p.title
	switch p.kind {
	case promptDecision:
		var lines []string
		lines, hint = m.decisionView()
		for _, l := range lines {
			body = append(body, " "+l)
		}
		title = decisionTitle(p.dec.d)
	case promptReview:
		hint = m.hints(keys.Approve, keys.NeedsFix, keys.Block) + th.Dim.Render(" · "+m.keys.Get(keys.Back).Help().Key+" later")
	case promptFindings:
		body = append(body, " "+p.input.View())
		hint = th.Dim.Render("enter send · esc back")
	case promptConfirm:
		hint = m.hints(keys.Yes, keys.No)
	}
	if m.now().Before(p.until) {
		hint += "  " + th.Dim.Render("(just appeared: keys wait a moment)")
	}
	body = append(body, " "+hint)
	return layout.Box(th, th.PromptTitle.Render(" "+title+" "), "", body, m.w, len(body)+2, true)
}
