package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	flowpane "github.com/flowdeck/flowdeck/ui/panes/flow"
)

// The decision prompt's drawing; decide.go holds its state and keys.

// decisionTitle names the prompt: what kind of question, of which run.
func decisionTitle(d model.Decision) string {
	what := "Decision"
	switch d.Kind {
	case model.DecisionInterrupted:
		what = "Interrupted"
	case model.DecisionForm:
		what = "Form"
	case model.DecisionTask:
		what = "Task"
	}
	if d.FlowRun == "" {
		return what + " " + d.ID
	}
	return fmt.Sprintf("%s · %s · step %s", what, d.FlowRun, d.Step)
}

// decisionView draws the decision dialog's body lines (the box and the key
// hints are drawn by dialogView).
func (m *Model) decisionView(f *decForm) (body []string) {
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
			body = append(body, strings.Repeat(" ", nameW+3)+th.Err.Render("✗ "+ff.err))
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
	for i, e := range layout.WrapLines(f.errs, w, 6) {
		if i == 0 {
			body = append(body, th.Err.Render(e))
		} else {
			body = append(body, e)
		}
	}
	return body
}

// decisionText is the decision's prompt wrapped to the box.
func (m *Model) decisionText(f *decForm) []string {
	return strings.Split(wrapText(flowpane.CleanText(f.d.Prompt), max(10, m.w-4)), "\n")
}

// decisionPromptLines is how many rows the prompt text may take in the box.
func (m *Model) decisionPromptLines() int { return min(12, max(3, (m.h-16)/2)) }

func typeText(f model.DecisionField) string {
	return flowfile.Var{Name: f.Name, Type: f.Type, Enum: f.Enum}.TypeText()
}

// wrapText wraps plain text at w cells, at spaces where it can.
func wrapText(s string, w int) string {
	return ansi.Wrap(strings.TrimRight(s, "\n"), w, " -")
}
