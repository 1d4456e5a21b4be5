package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"flowdeck/db"
	"flowdeck/flows"
	"flowdeck/flows/answer"
	"flowdeck/flows/flowfile"
	"flowdeck/model"
	"flowdeck/ui/keys"
	"flowdeck/ui/layout"
	flowpane "flowdeck/ui/panes/flow"
)

// The decision prompt answers a flow's pending decision: options on the
// number keys, a note (or, without options, the free answer) in a text
// input, and a small form for the step's fields. It opens by itself when a
// decision starts waiting, with the review prompt's grace period.

// focusOptions is the form stop where the number keys choose.
const focusOptions = -1

// decForm is the state of an open decision prompt.
type decForm struct {
	d      db.Decision
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
	f       db.DecisionField
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
	st := textinput.DefaultStyles(m.th.Dark)
	st.Cursor.Blink = false // a steady cursor keeps frames (and goldens) still
	in.SetStyles(st)
	in.SetWidth(max(10, m.w-30))
	return in
}

// openDecisionPrompt shows decision d. auto arms the grace period (it
// appeared by itself).
func (m *Model) openDecisionPrompt(d db.Decision, auto bool) tea.Cmd {
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
	p := &prompt{kind: promptDecision, dec: f, waitKey: decisionWaitKey(d.ID)}
	if auto {
		p.until = m.now().Add(m.grace)
	}
	m.prompt = p
	// The flow pane shows the decision's run: its steps, prompt and the
	// output the person decides on.
	m.focusPane(layout.Flow)
	cmd := f.focusInput()
	if d.FlowRun != "" && m.flowPin == "" && (m.flowView == nil || m.flowView.Run.ID != d.FlowRun) {
		m.minLoad = m.loadSeq + 1
		cmd = tea.Batch(cmd, m.loadCmd())
	}
	return cmd
}

func fieldPlaceholder(fd db.DecisionField) string {
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

// typing reports whether keys go into a text input.
func (f *decForm) typing() bool {
	if f.focus == len(f.fields) {
		return true
	}
	return f.focus >= 0 && f.focus < len(f.fields) && f.fields[f.focus].choices == nil
}

// decisionKey handles a key in the decision prompt.
func (m *Model) decisionKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.prompt
	f := p.dec
	key := k.String()
	if key == "ctrl+c" {
		return m.quit()
	}
	if f.refused {
		if key == "esc" || key == "enter" {
			m.prompt = nil
		}
		return nil
	}
	if f.sending {
		return nil
	}
	switch key {
	case "esc":
		if f.focus == len(f.fields) && len(f.d.Options) > 0 && len(f.fields) == 0 {
			f.focus = focusOptions // leave the note, keep it
			return f.focusInput()
		}
		m.dismissed[p.waitKey] = true
		m.prompt = nil
		m.note = infoNote("decision " + f.d.ID + " still waits · " + m.keyName(keys.Open) + " in the flow pane answers it")
		return nil
	case "pgdown", "pgup":
		// A long prompt scrolls inside the box.
		page := m.decisionPromptLines() - 1
		if key == "pgup" {
			page = -page
		}
		f.off = max(0, min(f.off+page, len(m.decisionText(f))-(m.decisionPromptLines()-1)))
		return nil
	case "tab", "down":
		return f.move(1)
	case "shift+tab", "up":
		return f.move(-1)
	case "enter":
		if len(f.d.Options) == 0 {
			return m.submitDecision("")
		}
		if f.focus == focusOptions {
			f.errs = []string{"choose an option with its number"}
			return nil
		}
		return f.move(1) // on towards the options
	case "left", "right":
		if f.focus >= 0 && f.focus < len(f.fields) && f.fields[f.focus].choices != nil {
			ff := &f.fields[f.focus]
			n := len(ff.choices)
			switch {
			case key == "right":
				ff.choice = (ff.choice + 1) % n
			case ff.choice <= 0:
				ff.choice = n - 1
			default:
				ff.choice--
			}
			ff.err = ""
			return nil
		}
	}
	if !f.typing() {
		// Numbers choose only on the options row, so that a number meant
		// for a field cannot answer the decision.
		if len(key) == 1 && key[0] >= '1' && key[0] <= '9' && f.focus == focusOptions {
			i := int(key[0] - '1')
			if i < len(f.d.Options) {
				return m.submitDecision(f.d.Options[i].ID)
			}
			f.errs = []string{fmt.Sprintf("there is no option %d", i+1)}
		}
		return nil
	}
	var cmd tea.Cmd
	if f.focus == len(f.fields) {
		f.note, cmd = f.note.Update(k)
	} else {
		f.fields[f.focus].in, cmd = f.fields[f.focus].in.Update(k)
		f.fields[f.focus].err = ""
	}
	f.errs = nil
	return cmd
}

// submitDecision checks the form's values against their types and sends
// the answer; a problem shows next to its field and nothing is sent.
func (m *Model) submitDecision(option string) tea.Cmd {
	p := m.prompt
	f := p.dec
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
func (m *Model) resolveCmd(d db.Decision, a flows.Answer) tea.Cmd {
	st, actor, now := m.st, m.actor, m.now()
	m.answering[d.ID] = true
	return func() tea.Msg {
		_, err := flows.ResolveDecision(st, d.ID, a, actor, now)
		msg := decidedMsg{id: d.ID, option: a.Option, err: err}
		// Executing first: an engine that finishes the run releases its
		// lock only after the run ended, so a free lock and a live run mean
		// nobody will continue it.
		if err == nil && d.FlowRun != "" && !flows.Executing(st, d.FlowRun) {
			if r, err := st.FlowRun(d.FlowRun); err == nil && !db.FlowEnded(r.Status) {
				msg.resume = r.ID
			}
		}
		return msg
	}
}

func (m *Model) onDecided(msg decidedMsg) tea.Cmd {
	delete(m.answering, msg.id)
	p := m.prompt
	mine := p != nil && p.kind == promptDecision && p.dec.d.ID == msg.id
	if msg.err != nil {
		lines := []string{"✗ " + msg.err.Error()}
		refused := false
		if e, ok := model.AsError(msg.err); ok {
			lines = refusalNote(e).lines
			refused = e.Code == db.CodeDecisionNotPending || e.Code == db.CodeUnknownDecision
		}
		if mine {
			p.dec.sending, p.dec.refused, p.dec.errs = false, refused, lines
		} else {
			m.note = note{kind: noteErr, lines: lines}
		}
		m.minLoad = m.loadSeq + 1
		return m.loadCmd()
	}
	if mine {
		m.prompt = nil
	}
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
	var d *db.Decision
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

func decisionWaitKey(id string) string { return "decision:" + id }

// decisionTitle names the prompt: what kind of question, of which run.
func decisionTitle(d db.Decision) string {
	what := "Decision"
	switch d.Kind {
	case db.DecisionInterrupted:
		what = "Interrupted"
	case db.DecisionForm:
		what = "Form"
	case db.DecisionTask:
		what = "Task"
	}
	if d.FlowRun == "" {
		return what + " " + d.ID
	}
	return fmt.Sprintf("%s · %s · step %s", what, d.FlowRun, d.Step)
}

// decisionView draws the decision prompt's body lines (the box is drawn by
// promptView).
func (m *Model) decisionView() (body []string, hint string) {
	f := m.prompt.dec
	th := m.th
	w := max(10, m.w-4)
	// The prompt text, as much as a short screen can spare; pgdown and
	// pgup scroll the rest into view.
	text := m.decisionText(f)
	if n := m.decisionPromptLines(); len(text) > n {
		page := n - 1
		off := max(0, min(f.off, len(text)-page)) // a resize may have moved the end
		shown := text[off : off+page]
		text = append(shown, th.Dim.Render(fmt.Sprintf("… lines %d–%d of %d · pgdn/pgup scroll", off+1, off+page, len(text))))
	}
	body = append(body, text...)
	for i, o := range f.d.Options {
		if i == 9 {
			body = append(body, th.Dim.Render(fmt.Sprintf("  … %d more: flowdeck decide %s OPTION", len(f.d.Options)-9, f.d.ID)))
			break
		}
		num := th.KeyHint.Render(fmt.Sprintf("%d", i+1))
		line := fmt.Sprintf("%s %s", num, th.Bold.Render(o.ID))
		if o.Description != "" && o.Description != o.ID {
			line += "  " + o.Description
		}
		body = append(body, line)
	}
	nameW := 0
	for _, ff := range f.fields {
		nameW = max(nameW, layout.Width(ff.f.Name))
	}
	for i, ff := range f.fields {
		mark := "  "
		if i == f.focus {
			mark = th.Accent.Render("› ")
		}
		var val string
		switch {
		case ff.choices != nil && ff.choice < 0:
			val = th.Dim.Render("‹ choose with ←/→: " + strings.Join(ff.choices, " | ") + " ›")
		case ff.choices != nil:
			val = "‹ " + th.Bold.Render(ff.choices[ff.choice]) + " ›"
		default:
			val = ff.in.View()
		}
		body = append(body, mark+layout.Fit(ff.f.Name, nameW)+th.Dim.Render(" ("+typeText(ff.f)+") ")+val)
		if ff.err != "" {
			body = append(body, strings.Repeat(" ", nameW+3)+th.Error.Render("✗ "+ff.err))
		}
	}
	mark := "  "
	if f.focus == len(f.fields) && len(f.fields) > 0 {
		mark = th.Accent.Render("› ")
	}
	body = append(body, mark+f.note.View())
	if d := f.d.Deadline; d != nil {
		then := "the flow fails"
		if f.d.Fallback != "" {
			then = "it takes " + f.d.Fallback
		}
		body = append(body, th.Dim.Render("times out at "+d.Format("15:04:05")+": then "+then))
	}
	for i, e := range wrapNote(f.errs, w, 6) {
		if i == 0 {
			body = append(body, th.Error.Render(e))
		} else {
			body = append(body, e)
		}
	}
	hint = m.decisionHint(f)
	return body, hint
}

// decisionText is the decision's prompt wrapped to the box.
func (m *Model) decisionText(f *decForm) []string {
	return strings.Split(wrapText(flowpane.CleanText(f.d.Prompt), max(10, m.w-4)), "\n")
}

// decisionPromptLines is how many rows the prompt text may take in the box.
func (m *Model) decisionPromptLines() int { return min(12, max(3, (m.h-16)/2)) }

func (m *Model) decisionHint(f *decForm) string {
	th := m.th
	k := func(key, desc string) string { return th.KeyHint.Render(key) + " " + th.Dim.Render(desc) }
	var parts []string
	switch {
	case f.refused:
		return k("esc", "close")
	case f.sending:
		return th.Dim.Render("sending…")
	}
	n := min(9, len(f.d.Options))
	if n > 0 {
		keysText := "1"
		if n > 1 {
			keysText = fmt.Sprintf("1–%d", n)
		}
		if f.focus == focusOptions {
			parts = append(parts, k(keysText, "choose"))
		} else {
			parts = append(parts, k("enter", "to the options"))
		}
	} else {
		parts = append(parts, k("enter", "send"))
	}
	if len(f.stops()) > 1 {
		next := "note"
		if len(f.fields) > 0 {
			next = "next field"
		}
		parts = append(parts, k("tab", next))
	}
	for _, ff := range f.fields {
		if ff.choices != nil {
			parts = append(parts, k("←/→", "pick"))
			break
		}
	}
	parts = append(parts, k("esc", "later"))
	return strings.Join(parts, th.Dim.Render(" · "))
}

func typeText(f db.DecisionField) string {
	return flowfile.Var{Name: f.Name, Type: f.Type, Enum: f.Enum}.TypeText()
}

// wrapText wraps plain text at w cells, at spaces where it can.
func wrapText(s string, w int) string {
	return ansi.Wrap(strings.TrimRight(s, "\n"), w, " -")
}
