package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/flows/answer"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// The decision prompt answers a flow's pending decision: options on the
// number keys, a note (or, without options, the free answer) in a text
// input, and a small form for the step's fields. It opens by itself when a
// decision starts waiting, with the review prompt's grace period.

// focusOptions is the form stop where the number keys choose.
const focusOptions = -1

// decForm is the state of an open decision prompt.
type decForm struct {
	d      model.Decision
	fields []formField
	// note holds the optional note when the decision has options, and the
	// answer itself when it has none (and no fields).
	note  textinput.Model
	focus int // a field's index, len(fields) for the note, focusOptions
	off   int // the first prompt line shown (pgup/pgdown)
	errs  []string
	// sending: the answer is being stored; keys wait. refused: the store
	// said no for good (resolved elsewhere); the prompt only reports it.
	sending, refused bool
}

type formField struct {
	f       model.DecisionField
	in      textinput.Model
	choices []string // enum values, or true/false: ←/→ cycle
	choice  int      // -1: none chosen yet
	err     string
}

// decidedMsg is the store's answer to a resolution.
type decidedMsg struct {
	id     string
	option string
	err    error
	// resume names the decision's run when no process executes it: the
	// cockpit continues it, so the answer is not left waiting.
	resume string
}

func (m *Model) newInput(prompt, placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.Placeholder = placeholder
	in.SetStyles(m.th.Input())
	in.SetWidth(max(10, m.w-30))
	return in
}

// openDecisionPrompt shows decision d. auto arms the grace period (it
// appeared by itself).
func (m *Model) openDecisionPrompt(d model.Decision, auto bool) tea.Cmd {
	f := &decForm{d: d}
	labelW := 0
	for _, fd := range d.Fields {
		labelW = max(labelW, layout.Width(fd.Name)+layout.Width(typeText(fd))+5)
	}
	for _, fd := range d.Fields {
		ff := formField{f: fd, choice: -1}
		switch fd.Type {
		case "enum":
			ff.choices = fd.Enum
		case "bool":
			ff.choices = []string{"true", "false"}
		default:
			ff.in = m.newInput("", fieldPlaceholder(fd))
			ff.in.SetWidth(max(10, m.w-6-labelW))
		}
		f.fields = append(f.fields, ff)
	}
	switch {
	case len(d.Options) > 0:
		f.note = m.newInput("note: ", "optional, tab to type it")
	case len(d.Fields) > 0:
		f.note = m.newInput("note: ", "optional")
	default:
		f.note = m.newInput("answer: ", "type your answer, enter sends")
	}
	switch {
	case len(f.fields) > 0:
		f.focus = 0
	case len(d.Options) > 0:
		f.focus = focusOptions
	default:
		f.focus = len(f.fields)
	}
	dlg := &decisionDialog{dialogBase: dialogBase{seq: m.sessSeq(), waitKey: decisionWaitKey(d.ID)}, f: f}
	m.push(dlg, auto)
	// The flow pane shows the decision's run: its steps, prompt and the
	// output the person decides on.
	m.focusPane(layout.Flow)
	cmd := f.focusInput()
	if m.planInEditor != nil && planField(d, 0) {
		m.planInEditor = nil // the plan this cockpit's /flow-plan asks for: straight to the editor
		cmd = tea.Batch(cmd, m.editFormField(dlg, 0))
	}
	if d.FlowRun != "" && m.flowPin == "" && (m.flowView == nil || m.flowView.Run.ID != d.FlowRun) {
		m.minLoad = m.loadSeq + 1
		cmd = tea.Batch(cmd, m.loadCmd())
	}
	return cmd
}

func fieldPlaceholder(fd model.DecisionField) string {
	switch fd.Type {
	case "number":
		return "a number"
	case "array":
		return `a JSON array, e.g. ["a", "b"]`
	case "json":
		return "JSON or text"
	}
	return "text"
}

// focusInput focuses the text input of the current stop, blurring the rest.
func (f *decForm) focusInput() tea.Cmd {
	var cmd tea.Cmd
	for i := range f.fields {
		if f.fields[i].choices != nil {
			continue
		}
		if i == f.focus {
			cmd = f.fields[i].in.Focus()
		} else {
			f.fields[i].in.Blur()
		}
	}
	if f.focus == len(f.fields) {
		cmd = f.note.Focus()
	} else {
		f.note.Blur()
	}
	return cmd
}

// stops is the cycle tab walks: the fields, the note, the options.
func (f *decForm) stops() []int {
	out := make([]int, 0, len(f.fields)+2)
	for i := range f.fields {
		out = append(out, i)
	}
	out = append(out, len(f.fields))
	if len(f.d.Options) > 0 {
		out = append(out, focusOptions)
	}
	return out
}

func (f *decForm) move(d int) tea.Cmd {
	s := f.stops()
	i := 0
	for k, v := range s {
		if v == f.focus {
			i = k
		}
	}
	f.focus = s[(i+d+len(s))%len(s)]
	return f.focusInput()
}

// editable reports whether the focused field is one edited in $EDITOR.
func (f *decForm) editable() bool {
	return f.focus >= 0 && f.focus < len(f.fields) && f.fields[f.focus].choices == nil && multiLine(f.fields[f.focus].f)
}

// typing reports whether keys go into a text input.
func (f *decForm) typing() bool {
	if f.focus == len(f.fields) {
		return true
	}
	return f.focus >= 0 && f.focus < len(f.fields) && f.fields[f.focus].choices == nil
}

// decisionDialog answers a flow's pending decision or form.
type decisionDialog struct {
	dialogBase
	f *decForm
}

func (d *decisionDialog) ID() string             { return "decision" }
func (d *decisionDialog) Title(m *Model) string  { return decisionTitle(d.f.d) + m.askedBy(d.f.d.ID) }
func (d *decisionDialog) Body(m *Model) []string { return m.decisionView(d.f) }
func (d *decisionDialog) Typing() bool           { return d.f.typing() && !d.f.sending && !d.f.refused }

func (d *decisionDialog) Unsent() bool {
	if strings.TrimSpace(d.f.note.Value()) != "" {
		return true
	}
	for _, ff := range d.f.fields {
		if ff.choices == nil && strings.TrimSpace(ff.in.Value()) != "" {
			return true
		}
	}
	return false
}

// KeyMap follows the form's focus: the options row chooses, a text field
// sends, a choice field picks.
func (d *decisionDialog) KeyMap(m *Model) keyMap {
	f := d.f
	var short []keys.Action
	desc := map[keys.Action]string{keys.Back: "later"}
	var verdicts []keys.Action // a review question's verdicts, by key
	for _, v := range verdictKeys {
		if id := verdictOption(&f.d, v); id != "" {
			verdicts, desc[v] = append(verdicts, v), id
		}
	}
	switch {
	case f.refused:
		return keyMap{km: m.keys, short: []keys.Action{keys.Back}, full: [][]keys.Action{{keys.Back}}, desc: map[keys.Action]string{keys.Back: "close"}}
	case f.sending:
		return keyMap{km: m.keys}
	case len(f.d.Options) > 0 && f.focus == focusOptions:
		short, desc[keys.Choose] = append(short, keys.Choose), "choose"
		short = append(short, verdicts...)
	case len(f.d.Options) > 0:
		short, desc[keys.Open] = append(short, keys.Open), "to the options"
	default:
		short, desc[keys.Open] = append(short, keys.Open), "send"
	}
	if len(f.stops()) > 1 {
		short, desc[keys.NextField] = append(short, keys.NextField), "note"
		if len(f.fields) > 0 {
			desc[keys.NextField] = "next field"
		}
	}
	if f.focus >= 0 && f.focus < len(f.fields) && f.fields[f.focus].choices != nil {
		short = append(short, keys.Left, keys.Right)
	}
	if f.editable() {
		short = append(short, keys.EditExternal)
	}
	short = append(short, keys.Back)
	full := [][]keys.Action{append(append([]keys.Action{keys.Choose}, verdicts...), keys.Open, keys.NextField, keys.PrevField, keys.Left, keys.Right, keys.EditExternal, keys.PageDown, keys.PageUp, keys.Back)}
	label := map[keys.Action]string{}
	if n := min(9, len(f.d.Options)); n > 1 {
		label[keys.Choose] = fmt.Sprintf("1–%d", n)
	} else {
		label[keys.Choose] = "1"
	}
	return keyMap{km: m.keys, short: short, full: full, desc: desc, label: label}
}

// HandleKey: a text field takes every printable key; the bound keys move
// between the stops, pick, choose, send or put the decision off.
func (d *decisionDialog) HandleKey(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	f := d.f
	typing := d.Typing()
	var a keys.Action
	ok := false
	if !typing || !printable(k) {
		a, ok = m.keys.Which(k, keys.Back, keys.Open, keys.NextField, keys.PrevField, keys.Down, keys.Up,
			keys.PageDown, keys.PageUp, keys.Left, keys.Right, keys.Choose, keys.EditExternal)
	}
	if !ok && !typing && f.focus == focusOptions && !f.refused && !f.sending {
		// A review question of a flow answers to the same keys as the
		// session's review dialog: approve, needs fix, block.
		if v, is := m.keys.Which(k, verdictKeys...); is {
			if id := verdictOption(&f.d, v); id != "" {
				return m.submitDecision(d, id), true
			}
		}
	}
	switch {
	case f.refused:
		if ok && (a == keys.Back || a == keys.Open) {
			m.pop()
			return nil, true
		}
		return nil, false
	case f.sending:
		return nil, !ok && typing
	}
	if ok {
		if cmd, done := m.decisionAction(d, a, k); done {
			return cmd, true
		}
	}
	if !typing {
		return nil, false
	}
	var cmd tea.Cmd
	if f.focus == len(f.fields) {
		f.note, cmd = f.note.Update(k)
	} else {
		f.fields[f.focus].in, cmd = f.fields[f.focus].in.Update(k)
		f.fields[f.focus].err = ""
	}
	f.errs = nil
	return cmd, true
}

// decisionAction runs a bound action in the decision dialog; done false
// lets the key through (to a text field, or to the global keys).
func (m *Model) decisionAction(d *decisionDialog, a keys.Action, k tea.KeyPressMsg) (tea.Cmd, bool) {
	f := d.f
	switch a {
	case keys.Back:
		if f.focus == len(f.fields) && len(f.d.Options) > 0 && len(f.fields) == 0 {
			f.focus = focusOptions // leave the note, keep it
			return f.focusInput(), true
		}
		m.dismissed[d.waitKey] = true
		m.pop()
		m.note = infoNote("decision " + f.d.ID + " still waits · " + m.keyName(keys.Open) + " in the flow pane answers it")
		return nil, true
	case keys.PageDown, keys.PageUp:
		// A long prompt scrolls inside the box.
		page := m.decisionPromptLines() - 1
		if a == keys.PageUp {
			page = -page
		}
		f.off = max(0, min(f.off+page, len(m.decisionText(f))-(m.decisionPromptLines()-1)))
		return nil, true
	case keys.NextField, keys.Down:
		return f.move(1), true
	case keys.PrevField, keys.Up:
		return f.move(-1), true
	case keys.Open:
		if len(f.d.Options) == 0 {
			return m.submitDecision(d, ""), true
		}
		if f.focus == focusOptions {
			f.errs = []string{"choose an option with its number"}
			return nil, true
		}
		return f.move(1), true // on towards the options
	case keys.Left, keys.Right:
		if f.focus < 0 || f.focus >= len(f.fields) || f.fields[f.focus].choices == nil {
			return nil, false // the cursor in a text field
		}
		ff := &f.fields[f.focus]
		n := len(ff.choices)
		switch {
		case a == keys.Right:
			ff.choice = (ff.choice + 1) % n
		case ff.choice <= 0:
			ff.choice = n - 1
		default:
			ff.choice--
		}
		ff.err = ""
		return nil, true
	case keys.EditExternal:
		if !f.editable() {
			return nil, false // in another text field: the input's own key (end of line)
		}
		return m.editFormField(d, f.focus), true
	case keys.Choose:
		// Numbers choose only on the options row, so that a number meant
		// for a field cannot answer the decision.
		if f.focus != focusOptions {
			return nil, false
		}
		i := int(k.Code - '1')
		if i >= 0 && i < len(f.d.Options) {
			return m.submitDecision(d, f.d.Options[i].ID), true
		}
		f.errs = []string{fmt.Sprintf("there is no option %d", i+1)}
		return nil, true
	}
	return nil, false
}

// verdictKeys choose a review decision's verdict by its key.
var verdictKeys = []keys.Action{keys.Approve, keys.NeedsFix, keys.Block}

// verdictOption is the option of review decision d that verdict key a
// chooses, or "" when d offers no such verdict.
func verdictOption(d *model.Decision, a keys.Action) string {
	want := map[keys.Action]model.ReviewDecision{keys.Approve: model.ReviewApproved,
		keys.NeedsFix: model.ReviewNeedsFix, keys.Block: model.ReviewBlocked}[a]
	for _, o := range d.Options {
		if o.ID == string(want) {
			return o.ID
		}
	}
	return ""
}

// submitDecision checks the form's values against their types and sends
// the answer; a problem shows next to its field and nothing is sent.
func (m *Model) submitDecision(d *decisionDialog, option string) tea.Cmd {
	f := d.f
	f.errs = nil
	values := map[string]any{}
	bad := -1
	for i := range f.fields {
		ff := &f.fields[i]
		ff.err = ""
		v := flowfile.Var{Name: ff.f.Name, Type: ff.f.Type, Enum: ff.f.Enum}
		var text string
		if ff.choices != nil {
			if ff.choice < 0 {
				ff.err = "choose one with ←/→"
				bad = firstBad(bad, i)
				continue
			}
			text = ff.choices[ff.choice]
		} else {
			text = ff.in.Value()
		}
		c, err := answer.FromText(text, v)
		if err != nil {
			ff.err = err.Error()
			bad = firstBad(bad, i)
			continue
		}
		values[ff.f.Name] = c
	}
	a := flows.Answer{Option: option, Note: strings.TrimSpace(f.note.Value())}
	if len(f.d.Options) == 0 && len(f.fields) == 0 {
		a.Option, a.Note = a.Note, ""
		if a.Option == "" {
			f.errs = []string{"type an answer first"}
			return nil
		}
	}
	if bad >= 0 {
		f.focus = bad
		return f.focusInput()
	}
	if len(values) > 0 {
		a.Values = values
	}
	f.sending = true
	return m.resolveCmd(f.d, a)
}

func firstBad(cur, i int) int {
	if cur < 0 {
		return i
	}
	return cur
}

// resolveCmd stores the answer. When no process executes the decision's
// run (the cockpit started after it stopped, or it was run with --no-wait)
// the message says so and the cockpit resumes it.
func (m *Model) resolveCmd(d model.Decision, a flows.Answer) tea.Cmd {
	p := m.p
	m.answering[d.ID] = true
	return func() tea.Msg {
		_, err := p.ResolveDecision(d.ID, a)
		msg := decidedMsg{id: d.ID, option: a.Option, err: err}
		// Executing first: an engine that finishes the run releases its
		// lock only after the run ended, so a free lock and a live run mean
		// nobody will continue it.
		if err == nil && d.FlowRun != "" && !p.FlowExecuting(d.FlowRun) {
			if r, err := p.FlowRun(d.FlowRun); err == nil && !model.FlowEnded(r.Status) {
				msg.resume = r.ID
			}
		}
		return msg
	}
}

func (m *Model) onDecided(msg decidedMsg) tea.Cmd {
	delete(m.answering, msg.id)
	p, _ := m.top().(*decisionDialog)
	mine := p != nil && p.f.d.ID == msg.id
	if msg.err != nil {
		lines := []string{"✗ " + msg.err.Error()}
		refused := false
		if e, ok := model.AsError(msg.err); ok {
			lines = refusalNote(e).lines
			refused = e.Code == model.CodeDecisionNotPending || e.Code == model.CodeUnknownDecision
		}
		if mine {
			p.f.sending, p.f.refused, p.f.errs = false, refused, lines
		} else {
			m.note = note{kind: noteErr, lines: lines}
		}
		m.minLoad = m.loadSeq + 1
		return m.loadCmd()
	}
	m.drop("decision")
	how := msg.option
	if how == "" {
		how = "answered"
	}
	m.note = okNote("decision " + msg.id + ": " + how)
	var cmds []tea.Cmd
	if msg.resume != "" {
		cmds = append(cmds, m.resumeFlow(msg.resume))
	}
	// Loads issued before the answer may still list it as pending.
	m.minLoad = m.loadSeq + 1
	return tea.Batch(append(cmds, m.loadCmd())...)
}

// openDecisionFromPane is enter in the flow pane: the shown run's pending
// decision, else the first one pending.
func (m *Model) openDecisionFromPane() tea.Cmd {
	var d *model.Decision
	if v := m.flowView; v != nil && v.Decision != nil {
		for i := range m.decisions {
			if m.decisions[i].ID == v.Decision.ID {
				d = &m.decisions[i]
			}
		}
	}
	if d == nil && len(m.decisions) > 0 {
		d = &m.decisions[0]
	}
	if d == nil {
		m.note = infoNote("no decision waits for you")
		return nil
	}
	delete(m.dismissed, decisionWaitKey(d.ID))
	return m.openDecisionPrompt(*d, false)
}

func decisionWaitKey(id string) string { return ops.DecisionWaitKey(id) }
