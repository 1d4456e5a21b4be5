// Package flow is the flow pane: one literate-flow run at a glance — its
// status, its steps with the current one marked, the step's interpolated
// prompt, the collected variables, and the live output of the step's exec
// block or agent (an output pane of its own, fed by the root model).
package flow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/output"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Notice kinds: how the line under the header is painted.
const (
	NoticeInfo = iota
	NoticeAttention
	NoticeError
)

// Data is what the root model hands the pane after each load.
type Data struct {
	View *flows.RunView
	// Notice is the line under the header: what waits, why it failed, how
	// to resume (the root knows the key names).
	Notice     string
	NoticeKind int
	// OutLabel names the run whose output is shown ("" = none);
	// OutRunning says it still runs.
	OutLabel   string
	OutRunning bool
}

// Model is the flow pane.
type Model struct {
	th   *styles.Styles
	out  *output.Model
	d    Data
	note string
	w, h int

	// Computed by fit from the data and the size, so View only paints.
	wide      bool
	stepsW    int   // wide: the steps column's width
	shown     []int // the steps a person sees (indices into View.Steps)
	cur       int   // the step the run is at, or was last at, in shown (-1: none)
	where     string
	strip     []string
	prompt    []string // wrapped
	vars      []string
	answer    []string // the latest action's answer in words, instead of its output
	answerTo  string
	promptH   int // rows for the prompt (label included), 0 = hidden
	varsH     int
	answerH   int
	outH      int
	promptOff int
}

// New returns an empty pane drawing out as its live output.
func New(th *styles.Styles, out *output.Model) *Model {
	return &Model{th: th, out: out, note: "no flow run yet"}
}

// SetStyles changes the styles the pane draws with.
func (m *Model) SetStyles(th *styles.Styles) {
	m.th = th
	m.out.SetStyles(th)
	m.fit()
}

// SetNote is shown when there is no run.
func (m *Model) SetNote(s string) { m.note = s }

// Set shows a run (d.View nil: none).
func (m *Model) Set(d Data) {
	if d.View == nil || m.d.View == nil || d.View.Run.ID != m.d.View.Run.ID || d.View.Prompt != m.d.View.Prompt {
		m.promptOff = 0
	}
	m.d = d
	m.fit()
}

// Run is the id of the run shown ("" = none).
func (m *Model) Run() string {
	if m.d.View == nil {
		return ""
	}
	return m.d.View.Run.ID
}

// SetSize sets the content area.
func (m *Model) SetSize(w, h int) {
	if w == m.w && h == m.h {
		return
	}
	m.w, m.h = w, h
	m.fit()
}

// Status is how a run reads (model.FlowStateOf): running, pausing, waiting,
// interrupted, paused, completed, refused, failed or cancelled.
func Status(v *flows.RunView) model.FlowState { return model.FlowStateOf(&v.Run, v.Executing) }

func glyph(state model.FlowState) string {
	switch state {
	case model.FlowStateRunning, model.FlowStatePausing:
		return "⟳"
	case model.FlowStateWaiting:
		return "⚑"
	case model.FlowStateInterrupted, model.FlowStatePaused:
		return "‖"
	case model.FlowStateCompleted:
		return "✓"
	case model.FlowStateFailed, model.FlowStateRefused:
		return "✗"
	case model.FlowStateCancelled:
		return "■"
	}
	return "·"
}

// hasOutput: the step ran something whose output is worth its room; an
// action that answered with variables is said in words instead (answer).
func (m *Model) hasOutput() bool { return m.out.Run() != "" && len(m.answer) == 0 }

// asking: the run waits for the person, so what it asks comes before the
// output of the step before.
func (m *Model) asking() bool {
	v := m.d.View
	return v != nil && v.Decision != nil && v.Decision.Status == model.DecisionPending
}

// fit wraps the prompt and shares the rows between the sections: the
// output (when the step ran something) gets at least half — a quarter when
// the run waits for the person, whose question matters more —, the
// variables a few lines, the prompt the rest.
func (m *Model) fit() {
	v := m.d.View
	if v == nil || m.w <= 0 || m.h <= 0 {
		m.out.SetSize(max(0, m.w), 0)
		return
	}
	m.wide = m.w >= 90 && m.h >= 8
	m.placeSteps()
	rw := m.w
	if m.wide {
		m.stepsW = 12
		for _, i := range m.shown {
			s := v.Steps[i]
			m.stepsW = max(m.stepsW, layout.Width(title(s))+layout.Width(who(s))+6)
		}
		m.stepsW = min(m.stepsW, 34, m.w/3)
		rw = m.w - m.stepsW - 1
	}
	m.answer, m.answerTo = nil, ""
	if a := v.Answer; a != nil && a.Run == m.out.Run() && !m.d.OutRunning {
		m.answer = answerLines(a, rw-1)
		m.answerTo = answerLabel(v, a)
	}
	fixed := 1
	if m.d.Notice != "" {
		fixed++
	}
	m.strip = nil
	if !m.wide {
		m.strip = m.stepStrip(rw, 2)
		fixed += len(m.strip)
	}
	m.prompt = nil
	if p := strings.TrimSpace(v.Prompt); p != "" {
		m.prompt = strings.Split(ansi.Wrap(CleanText(p), max(10, rw-1), " -"), "\n")
	}
	var said map[string]any
	if len(m.answer) > 0 {
		said = v.Answer.Vars
	}
	m.vars = varLines(v, rw-1, said)
	avail := max(0, m.h-fixed)
	m.answerH = 0
	if len(m.answer) > 0 {
		m.answerH = min(len(m.answer)+1, max(2, avail/3))
		avail = max(0, avail-m.answerH)
	}
	varCap := 2
	if m.wide {
		varCap = 6
	}
	m.varsH = 0
	if n := min(len(m.vars), varCap); n > 0 {
		m.varsH = n + 1
	}
	m.outH = 0
	switch {
	case m.hasOutput() && m.asking():
		m.outH = min(max(3, avail/4), max(3, avail-m.varsH-len(m.prompt)-1))
	case m.hasOutput():
		m.outH = max(4, avail/2)
	}
	m.promptH = 0
	if len(m.prompt) > 0 {
		m.promptH = min(len(m.prompt)+1, avail-m.varsH-m.outH)
		if m.promptH < 2 {
			m.varsH = 0 // the prompt matters more than the variables
			m.promptH = min(len(m.prompt)+1, avail-m.outH)
		}
		if m.promptH < 2 {
			m.promptH = 0
		}
		if len(m.prompt) >= m.promptH {
			// It does not fit: paragraphs' blank lines cost rows.
			m.prompt = slices.DeleteFunc(m.prompt, func(l string) bool { return strings.TrimSpace(l) == "" })
			m.promptH = min(m.promptH, len(m.prompt)+1)
		}
	}
	if m.hasOutput() {
		m.outH = max(0, avail-m.promptH-m.varsH)
	} else if m.varsH > 0 {
		// No output: the variables may take what the prompt leaves.
		m.varsH = min(len(m.vars)+1, max(m.varsH, avail-m.promptH))
	}
	m.out.SetSize(rw, max(0, m.outH-1))
	m.clampPrompt()
}

func (m *Model) clampPrompt() {
	m.promptOff = max(0, min(m.promptOff, len(m.prompt)-(m.promptH-1)))
}

// placeSteps picks the steps a person sees — the flow's plumbing left
// out, and of its endings only the one the run reached — and where the run
// is among them: "step 3 of 7: Review the change", counting the stages on
// the way (endings are not stages).
func (m *Model) placeSteps() {
	v := m.d.View
	m.shown, m.cur, m.where = m.shown[:0], -1, ""
	at := -1 // the step the run is at (or ended in)
	for i, s := range v.Steps {
		if s.Current || (!isCurrentKnown(v) && s.Name == v.Run.Step) {
			at = i
		}
	}
	// A run in its plumbing is still where a person last saw it.
	focus := at
	if at >= 0 && v.Steps[at].Internal {
		focus = -1
		for h := len(v.Run.History) - 1; h >= 0 && focus < 0; h-- {
			if i := v.Run.History[h].StepIndex; i >= 0 && i < len(v.Steps) && v.Steps[i].Name == v.Run.History[h].Step && !v.Steps[i].Internal {
				focus = i
			}
		}
	}
	total, pos := 0, 0
	for i, s := range v.Steps {
		if s.Internal || s.End && s.Visits == 0 && i != at {
			continue
		}
		if i == focus {
			m.cur = len(m.shown)
		}
		m.shown = append(m.shown, i)
		if !s.End {
			total++
			if i == focus {
				pos = total
			}
		}
	}
	switch {
	case focus >= 0 && v.Steps[focus].End:
		m.where = "ended at: " + title(v.Steps[focus])
	case pos > 0 && focus != at:
		m.where = fmt.Sprintf("after step %d of %d: %s · now: %s", pos, total, title(v.Steps[focus]), title(v.Steps[at]))
	case pos > 0:
		m.where = fmt.Sprintf("step %d of %d: %s", pos, total, title(v.Steps[focus]))
	case at >= 0:
		m.where = "now: " + title(v.Steps[at])
	}
}

// title is a step's heading (or its name in words), safe and on one line.
func title(s flows.StepView) string {
	t := s.Title
	if t == "" {
		t = strings.ReplaceAll(s.Name, "-", " ")
	}
	return layout.Cut(OneLine(t), 40)
}

// who says who answers a step, when someone does: you, or the agent's role.
func who(s flows.StepView) string {
	switch {
	case s.Kind == "human":
		return "you"
	case strings.HasPrefix(s.Kind, "agent "):
		return layout.Cut(OneLine(strings.TrimPrefix(s.Kind, "agent ")), 14)
	}
	return ""
}

// stepStrip lays the shown steps out as "✓ Start  ▸ Review  · Done" in at
// most n lines of width w, keeping the current step in view.
func (m *Model) stepStrip(w, n int) []string {
	v := m.d.View
	if len(m.shown) == 0 {
		return nil
	}
	cur := max(0, m.cur)
	plain := make([]string, len(m.shown))
	for k, i := range m.shown {
		plain[k] = m.stepGlyph(v.Steps[i]) + " " + title(v.Steps[i])
	}
	lo, hi := 0, len(plain)
	for lo < hi-1 && stripLines(plain[lo:hi], w-1, lo > 0, hi < len(plain)) > n {
		if cur-lo > hi-1-cur {
			lo++
		} else {
			hi--
		}
	}
	w-- // each line starts with a space, as the other sections do
	var lines []string
	line, used := "", 0
	add := func(text, painted string) {
		tw := layout.Width(text)
		if used > 0 && used+2+tw > w {
			lines = append(lines, line)
			line, used = "", 0
		}
		if used > 0 {
			line += "  "
			used += 2
		}
		line += painted
		used += tw
	}
	if lo > 0 {
		add("…", m.th.Dim.Render("…"))
	}
	for k := lo; k < hi; k++ {
		add(plain[k], m.paintStep(v.Steps[m.shown[k]], plain[k], k == m.cur))
	}
	if hi < len(plain) {
		add("…", m.th.Dim.Render("…"))
	}
	if used > 0 {
		lines = append(lines, line)
	}
	if len(lines) > n {
		lines = lines[:n]
	}
	for i := range lines {
		lines[i] = " " + layout.Cut(lines[i], w)
	}
	return lines
}

// isCurrentKnown: an ended run marks no step current; its last step is
// then the one it ended in.
func isCurrentKnown(v *flows.RunView) bool {
	for _, s := range v.Steps {
		if s.Current {
			return true
		}
	}
	return false
}

func stripLines(tokens []string, w int, pre, post bool) int {
	if pre {
		tokens = append([]string{"…"}, tokens...)
	}
	if post {
		tokens = append(tokens, "…")
	}
	lines, used := 1, 0
	for _, t := range tokens {
		tw := layout.Width(t)
		if used > 0 && used+2+tw > w {
			lines++
			used = 0
		}
		if used > 0 {
			used += 2
		}
		used += tw
	}
	return lines
}

func (m *Model) stepGlyph(s flows.StepView) string {
	v := m.d.View
	switch {
	case s.Current:
		return "▸"
	case !isCurrentKnown(v) && s.Name == v.Run.Step && v.Run.Status != model.FlowCompleted:
		return glyph(model.FlowState(v.Run.Status))
	case s.Visits > 0:
		return "✓"
	}
	return "·"
}

func (m *Model) paintStep(s flows.StepView, text string, current bool) string {
	switch {
	case current && s.Current:
		return m.th.Selected.Render(text)
	case current:
		return m.th.Bold.Render(text)
	case s.Visits > 0:
		return m.th.Text.Render(text)
	}
	return m.th.Dim.Render(text)
}

// CleanText makes text from a flow (prompts hold exec output) safe to draw:
// no escape sequences or control characters, tabs as spaces.
func CleanText(s string) string {
	lines := strings.Split(Prose(s), "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ")
		lines[i] = ansi.Strip(output.Sanitize(l))
	}
	return strings.Join(lines, "\n")
}

// OneLine is CleanText for a field that must stay one line (a step's
// title, a variable's value): newlines and runs of spaces become one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(CleanText(s)), " ")
}

// scrollsOutput: movement scrolls the output while the step runs
// something, the prompt when there is none or the run waits for an answer.
func (m *Model) scrollsOutput() bool { return m.hasOutput() && !m.asking() }

// Move scrolls the output or the prompt (scrollsOutput).
func (m *Model) Move(d int) {
	if m.scrollsOutput() {
		m.out.Move(d)
		return
	}
	m.promptOff += d
	m.clampPrompt()
}

// Page moves half a screen.
func (m *Model) Page(dir int) { m.Move(dir * max(1, m.h/2)) }

// Scroll is the mouse wheel.
func (m *Model) Scroll(d int) { m.Move(d) }

// Top goes to the start.
func (m *Model) Top() {
	if m.scrollsOutput() {
		m.out.Top()
		return
	}
	m.promptOff = 0
}

// Bottom goes to the end.
func (m *Model) Bottom() {
	if m.scrollsOutput() {
		m.out.Bottom()
		return
	}
	m.promptOff = len(m.prompt)
	m.clampPrompt()
}

// Footer is the output's position and modes.
func (m *Model) Footer() string {
	if m.d.View == nil || m.outH < 2 {
		return ""
	}
	return m.out.Footer()
}

// Title is what the frame says after the pane's name: the run and status.
func (m *Model) Title() string {
	v := m.d.View
	if v == nil {
		return ""
	}
	return v.Run.ID + " · " + string(Status(v))
}

// View returns exactly h lines of width w.
func (m *Model) View() []string {
	v := m.d.View
	if v == nil {
		var lines []string
		for _, l := range strings.Split(ansi.Wrap(m.note, max(10, m.w-2), " "), "\n") {
			lines = append(lines, m.th.Dim.Render(" "+l))
		}
		return layout.PadLines(lines, m.w, m.h)
	}
	rw := m.w
	if m.wide {
		rw = m.w - m.stepsW - 1
	}
	var right []string
	right = append(right, m.header(rw))
	if m.d.Notice != "" {
		p := m.th.Dim
		switch m.d.NoticeKind {
		case NoticeAttention:
			p = m.th.Attention
		case NoticeError:
			p = m.th.Err
		}
		right = append(right, layout.Fit(p.Render(" "+m.d.Notice+" "), rw))
	}
	right = append(right, m.strip...)
	if m.promptH > 0 {
		body := m.promptH - 1
		label := "prompt"
		if v.PromptStep != "" && v.PromptStep != v.Run.Step {
			label = "prompt of " + StepTitle(v, v.PromptStep)
		}
		if len(m.prompt) > body {
			label += fmt.Sprintf(" (%d–%d of %d lines)", m.promptOff+1, min(len(m.prompt), m.promptOff+body), len(m.prompt))
		}
		right = append(right, m.rule(label, rw))
		for _, l := range m.prompt[m.promptOff:min(len(m.prompt), m.promptOff+body)] {
			right = append(right, " "+l)
		}
	}
	if m.varsH > 0 {
		right = append(right, m.rule("working on", rw))
		for _, l := range m.vars[:min(len(m.vars), m.varsH-1)] {
			right = append(right, " "+l)
		}
	}
	if m.answerH > 0 {
		right = append(right, m.rule(m.answerTo, rw))
		for _, l := range m.answer[:min(len(m.answer), m.answerH-1)] {
			right = append(right, " "+l)
		}
	}
	if m.outH > 0 {
		right = append(right, m.rule("output · "+m.d.OutLabel, rw))
		right = append(right, m.out.View()...)
	}
	right = layout.PadLines(right, rw, m.h)
	if !m.wide {
		return right
	}
	left := layout.PadLines(m.stepColumn(), m.stepsW, m.h)
	bar := m.th.Border.Render(m.th.Frame.Left)
	out := make([]string, m.h)
	for i := range out {
		out[i] = left[i] + bar + right[i]
	}
	return out
}

func (m *Model) header(w int) string {
	v := m.d.View
	st := Status(v)
	p := m.th.Accent
	switch st {
	case model.FlowStateCompleted:
		p = m.th.Ok
	case model.FlowStateFailed, model.FlowStateRefused:
		p = m.th.Err
	case model.FlowStateWaiting:
		p = m.th.Attention
	case model.FlowStateInterrupted, model.FlowStatePaused, model.FlowStateCancelled:
		p = m.th.Warn
	}
	text := " " + p.Render(glyph(st)+" "+string(st)) + "  " + m.th.Bold.Render(OneLine(v.Run.ID))
	if v.Run.Flow != "" && !strings.HasPrefix(v.Run.ID, v.Run.Flow+"-") {
		text += m.th.Dim.Render(" (" + OneLine(v.Run.Flow) + ")")
	}
	if m.where != "" {
		text += m.th.Dim.Render(" · ") + m.where
	}
	return layout.Fit(text, w)
}

func (m *Model) rule(label string, w int) string {
	text := "─ " + label + " "
	return m.th.Dim.Render(layout.Cut(text+strings.Repeat(m.th.Frame.Top, max(0, w-layout.Width(text))), w))
}

// StepTitle is how the pane names the step name of v's flow: its title
// (its name when the flow has no such step), safe and on one line.
func StepTitle(v *flows.RunView, name string) string {
	for _, s := range v.Steps {
		if s.Name == name {
			return title(s)
		}
	}
	return layout.Cut(OneLine(name), 40)
}

// stepColumn is the wide layout's list of the shown steps, one per line,
// scrolled so that the current one shows.
func (m *Model) stepColumn() []string {
	v := m.d.View
	lines := []string{m.th.Dim.Render(" steps")}
	from := 0
	if room := m.h - 1; len(m.shown) > room {
		from = max(0, min(m.cur-room/2, len(m.shown)-room))
	}
	for k := from; k < len(m.shown); k++ {
		s := v.Steps[m.shown[k]]
		name := m.stepGlyph(s) + " " + title(s)
		if s.Visits > 1 {
			name += fmt.Sprintf(" ×%d", s.Visits)
		}
		kind := who(s)
		gap := m.stepsW - 1 - layout.Width(name) - layout.Width(kind)
		if gap < 1 {
			name = layout.Cut(name, max(1, m.stepsW-2-layout.Width(kind)))
			gap = max(1, m.stepsW-1-layout.Width(name)-layout.Width(kind))
		}
		line := " " + m.paintStep(s, name, k == m.cur) + strings.Repeat(" ", gap) + m.th.Dim.Render(kind)
		lines = append(lines, layout.Fit(line, m.stepsW))
	}
	return lines
}
