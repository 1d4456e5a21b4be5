package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/render"
	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// promptRoomy is the height from which dialogs show their extra lines; on a
// 24-line terminal the features list needs the rows more.
const promptRoomy = 30

// reviewDialog decides a feature's review, or the session's final review:
// a approves, x asks for findings, b blocks. It opens on the change (the
// feature's diff, the session's for the final review); E switches to the
// evidence and back.
type reviewDialog struct {
	dialogBase
	feature string
	final   bool
	// tail is the end of the evidence run's output (read in a command).
	run  string
	tail []string
	// change is what is reviewed; evidence shows the evidence instead.
	change   *changeView
	evidence bool
}

func (d *reviewDialog) ID() string { return "review" }

func (d *reviewDialog) Title(m *Model) string {
	if d.final {
		return "Final review of the session"
	}
	return "Review " + d.feature + m.agentOf(d.feature)
}

// showsChange says whether the dialog shows the change: once it is read,
// unless E switched to the evidence. Until then (and where there is no
// change to show: no git) it shows the evidence.
func (d *reviewDialog) showsChange() bool {
	return !d.evidence && d.change != nil && d.change.res != nil
}

func (d *reviewDialog) Body(m *Model) []string {
	if d.showsChange() {
		checks := m.checksLine(d)
		return append([]string{checks}, d.change.lines(m, max(10, m.w-4), changeHeight(m, 1))...)
	}
	body, extra := m.reviewSummary(d.feature, d.final)
	if checks := m.checksLine(d); checks != "" {
		body = append(body, checks)
	}
	if c := d.change; c != nil && c.problem != "" && m.h >= promptRoomy {
		body = append(body, m.th.Dim.Render("the change: "+termtext.Line(c.problem)))
	}
	var out []string
	for i, l := range body {
		if !extra[i] || m.h >= promptRoomy {
			out = append(out, l)
		}
	}
	if len(d.tail) > 0 {
		n := 2
		if m.h >= promptRoomy {
			n = 6
		}
		tail := d.tail[max(0, len(d.tail)-n):]
		out = append(out, m.th.Dim.Render("last lines of run "+d.run+":"))
		for _, l := range tail {
			out = append(out, "  "+l)
		}
	}
	return out
}

func (d *reviewDialog) KeyMap(m *Model) keyMap {
	short := []keys.Action{keys.Approve, keys.NeedsFix, keys.Block, keys.Evidence, keys.Back}
	if d.change == nil || d.change.res == nil {
		short = []keys.Action{keys.Approve, keys.NeedsFix, keys.Block, keys.Back}
	} else if !d.evidence {
		short = append([]keys.Action{keys.Approve, keys.NeedsFix, keys.Block}, d.change.shortKeys()...)
		short = append(short, keys.Evidence, keys.Back)
	}
	k := m.keyMapOf(short, []keys.Action{keys.Approve, keys.NeedsFix, keys.Block, keys.Evidence, keys.Back}, changeKeys)
	k.desc = map[keys.Action]string{keys.Back: "later", keys.Open: "one file"}
	if d.showsChange() {
		k.desc[keys.Back] = d.change.backDesc("later")
	}
	if d.evidence {
		k.desc[keys.Evidence] = "the change"
	} else {
		k.desc[keys.Evidence] = "evidence"
	}
	return k
}

func (d *reviewDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a, ok := m.keys.Which(k, d.KeyMap(m).actions()...)
	if !ok {
		return nil, false
	}
	switch a {
	case keys.Approve:
		m.drop(d.ID())
		return m.review(d.feature, d.final, model.ReviewApproved, nil, d.seq), true
	case keys.NeedsFix, keys.Block:
		return m.openFindings(d.feature, d.final, reviewDecision(a), d), true
	case keys.Evidence:
		if d.change == nil || d.change.res == nil {
			return nil, false
		}
		d.evidence = !d.evidence
		return m.highlightSoon(), true
	case keys.Back:
		if d.showsChange() && d.change.view.Back() {
			return nil, true // from a diff back to the list of files
		}
	default:
		if !d.showsChange() {
			return nil, false
		}
		return d.change.key(m, a)
	}
	m.dismissed[d.waitKey] = true
	m.pop()
	m.note = infoNote(d.Title(m) + " still waits · " + m.keyName(keys.Approve) + " on the feature opens it again")
	return nil, true
}

// openReviewPrompt shows the review of w with its evidence; auto arms the
// grace period (the review started waiting by itself). The end of the
// evidence run's output is read in a command.
func (m *Model) openReviewPrompt(w wait, auto bool) tea.Cmd {
	d := &reviewDialog{dialogBase: dialogBase{seq: m.sessSeq(), waitKey: w.Key}, feature: w.Feature, final: w.Kind == waitFinal}
	d.change = m.newChange(ops.DiffRequest{Feature: w.Feature, Session: d.final})
	m.push(d, auto)
	return tea.Batch(m.tailCmd(d), m.loadChange(d.change))
}

// checksLine is the review's verification on one line: each command of
// the plan with its evidence on the code as the change found it (stale
// when the code moved since), or for the final review its broad
// validation.
func (m *Model) checksLine(d *reviewDialog) string {
	if m.sess == nil || m.sess.Plan == nil {
		return ""
	}
	f := m.sess.Plan.Feature(d.feature)
	if f == nil {
		return ""
	}
	tree := ""
	if d.change != nil && d.change.res != nil && !d.final {
		tree = d.change.res.Current
	}
	cs := model.Checks(f, tree)
	line := "verification: " + model.ChecksText(cs)
	for _, c := range cs {
		if c.State != model.CheckPassed {
			return m.th.Warn.Render(line)
		}
	}
	return m.th.Ok.Render(line)
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
		out = append(out, fmt.Sprintf("%s; %s, the last, waits for the final review.", render.ProgressText(s.Plan), id))
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

// evidenceRun is the run behind the evidence a review dialog shows.
func (m *Model) evidenceRun(d *reviewDialog) string {
	if m.sess == nil || m.sess.Plan == nil {
		return ""
	}
	ev := (*model.Evidence)(nil)
	if d.final {
		ev = m.sess.Execution.LastValidation
	} else if f := m.sess.Plan.Feature(d.feature); f != nil {
		ev = model.LatestEvidence(f)
	}
	if ev == nil {
		return ""
	}
	return ev.RunID
}

// findingsDialog asks what must change before a needs_fix or blocked
// review is recorded.
type findingsDialog struct {
	dialogBase
	feature  string
	final    bool
	decision model.ReviewDecision
	input    textinput.Model
	err      string
	// fromReview: esc goes back to the review dialog that opened it.
	fromReview bool
}

func (d *findingsDialog) ID() string   { return "findings" }
func (d *findingsDialog) Typing() bool { return true }
func (d *findingsDialog) Unsent() bool { return strings.TrimSpace(d.input.Value()) != "" }

func (d *findingsDialog) Title(*Model) string {
	what := d.feature
	if d.final {
		what = "the session (final review)"
	}
	if d.decision == model.ReviewBlocked {
		return "Block " + what
	}
	return "Request changes to " + what
}

func (d *findingsDialog) Body(m *Model) []string {
	out := []string{d.input.View()}
	if d.err != "" {
		out = append([]string{m.th.Err.Render(d.err)}, out...)
	}
	return out
}

func (d *findingsDialog) KeyMap(m *Model) keyMap {
	k := m.keyMapOf([]keys.Action{keys.Open, keys.Back})
	k.desc = map[keys.Action]string{keys.Open: "send", keys.Back: "cancel"}
	if d.fromReview {
		k.desc[keys.Back] = "back to the review"
	}
	return k
}

func (d *findingsDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if !printable(k) {
		if a, ok := m.keys.Which(k, keys.Open, keys.Back); ok {
			if a == keys.Back {
				m.pop() // back to the review, if it opened this
				return nil, true
			}
			findings := SplitFindings(d.input.Value())
			if d.decision == model.ReviewNeedsFix && len(findings) == 0 {
				d.err = "needs_fix needs at least one finding"
				return nil, true
			}
			m.drop(d.ID())
			m.drop("review")
			return m.review(d.feature, d.final, d.decision, findings, d.seq), true
		}
		if m.keys.Matches(k, keys.Quit) || m.keys.Matches(k, keys.Help) {
			return nil, false
		}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(k)
	return cmd, true
}

// openFindings asks for the findings of a needs_fix or blocked review. from
// is the review dialog it was opened from (nil: a key in the features).
func (m *Model) openFindings(feature string, final bool, dec model.ReviewDecision, from *reviewDialog) tea.Cmd {
	in := m.newInput("findings: ", "what must change (separate several with ;)")
	in.SetWidth(max(10, m.w-16))
	d := &findingsDialog{feature: feature, final: final, decision: dec, input: in}
	d.seq = m.sessSeq()
	if from != nil {
		d.seq, d.waitKey, d.fromReview = from.seq, from.waitKey, true
	} else if w, ok := m.waitFor(feature, final); ok {
		d.waitKey = w.Key
	}
	m.push(d, false)
	return d.input.Focus()
}

// SplitFindings splits what the person typed into a review's findings:
// several are separated with ";", blanks dropped. The fleet view's
// findings field reads the same way.
func SplitFindings(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ";") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// confirmDialog asks y/n before an action that writes or destroys; the
// title names what and on which feature.
type confirmDialog struct {
	dialogBase
	id     string
	title  string
	body   []string
	action model.Action   // what y stores
	yes    func() tea.Cmd // what y runs, when there is no action
	label  string         // what to say when it is done
}

func (d *confirmDialog) ID() string             { return d.id }
func (d *confirmDialog) Title(*Model) string    { return d.title }
func (d *confirmDialog) Body(m *Model) []string { return d.body }
func (d *confirmDialog) KeyMap(m *Model) keyMap { return m.keyMapOf([]keys.Action{keys.Yes, keys.No}) }
func (d *confirmDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a, ok := m.keys.Which(k, keys.Yes, keys.No, keys.Back)
	if !ok {
		return nil, false
	}
	m.drop(d.ID())
	switch {
	case a == keys.Yes && d.yes != nil:
		return d.yes(), true
	case a == keys.Yes:
		return m.doSeen(d.label, d.action, d.seq), true
	}
	m.note = infoNote("cancelled")
	return nil, true
}

// openConfirm asks y/n before storing a.
func (m *Model) openConfirm(title string, body []string, a model.Action, label string) {
	m.push(&confirmDialog{dialogBase: dialogBase{seq: m.sessSeq()}, id: "confirm", title: title, body: body, action: a, label: label}, false)
}

// openConfirmFunc asks y/n before yes runs.
func (m *Model) openConfirmFunc(title string, body []string, yes func() tea.Cmd) {
	m.push(&confirmDialog{dialogBase: dialogBase{seq: m.sessSeq()}, id: "confirm", title: title, body: body, yes: yes}, false)
}

// keyName is the first key bound to a, for messages.
func (m *Model) keyName(a keys.Action) string {
	ks := m.keys.Get(a).Keys()
	if len(ks) == 0 || !m.keys.Get(a).Enabled() {
		return "(" + string(a) + " is unbound)"
	}
	return keys.Label(ks[:1])
}

// tailMsg is the end of an evidence run's output, for the review dialog.
type tailMsg struct {
	run   string
	lines []string
}

// tailLines is how much of the evidence run a review dialog can show.
const tailLines = 6

// tailCmd reads the last lines of the review's evidence run (nil when the
// evidence names no run).
func (m *Model) tailCmd(d *reviewDialog) tea.Cmd {
	id := m.evidenceRun(d)
	if id == "" {
		return nil
	}
	d.run = id
	p := m.p
	return func() tea.Msg {
		lines, _, err := readTail(p, id, -1)
		if err != nil {
			return tailMsg{run: id}
		}
		for i, l := range lines {
			lines[i] = layout.Cut(l, 200)
		}
		return tailMsg{run: id, lines: lines[max(0, len(lines)-tailLines):]}
	}
}

func (m *Model) onTail(msg tailMsg) {
	for _, d := range m.dialogs {
		if r, ok := d.(*reviewDialog); ok && r.run == msg.run {
			r.tail = msg.lines
		}
	}
}

// quitDialog asks before quitting loses something; quit again, or yes,
// quits.
type quitDialog struct {
	dialogBase
	why []string
}

func (d *quitDialog) ID() string             { return "quit" }
func (d *quitDialog) Title(*Model) string    { return "Quit flowdeck?" }
func (d *quitDialog) Body(m *Model) []string { return d.why }
func (d *quitDialog) KeyMap(m *Model) keyMap {
	k := m.keyMapOf([]keys.Action{keys.Yes, keys.No})
	k.desc = map[keys.Action]string{keys.Yes: "quit", keys.No: "stay"}
	return k
}

func (d *quitDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	a, ok := m.keys.Which(k, keys.Yes, keys.Quit, keys.No, keys.Back)
	if !ok {
		return nil, false
	}
	m.drop(d.ID())
	if a == keys.Yes || a == keys.Quit {
		return m.quitNow(), true
	}
	return nil, true
}
