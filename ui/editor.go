package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/tailscale/hujson"

	"github.com/flowdeck/flowdeck/internal/editor"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/keys"
)

// Editing in the person's editor ($VISUAL, else $EDITOR, else vi), as
// `flowdeck flow plan edit` does and through the same internal/editor: the
// plan (/flow-plan without a planner agent), the plan field of the plan
// flow's form, and a form's multi-line fields (JSON, lists such as
// findings). The file is written, read and applied in commands;
// tea.ExecProcess suspends the cockpit while the editor runs. A plan that
// is refused reopens in the editor at once, the refusal on top as
// comments, until it applies or the person cancels (quits without saving,
// empties the file); the note line says how it ended.

// editKind is what an edit's save does.
type editKind int

const (
	editPlan      editKind = iota // applies the plan to the session
	editPlanField                 // checks the plan, then answers the plan flow's form with it
	editField                     // puts the text in a form field
)

// editSession is the edit in progress (Model.editing).
type editSession struct {
	kind editKind
	file *editor.File
	// seen is the session sequence the plan was drawn from (editPlan): a
	// session changed meanwhile is refused stale_decision, then retried on
	// the new one.
	seen  uint64
	form  *decisionDialog // the form of editPlanField and editField
	field int             // its field
	def   model.DecisionField
}

// editMsg is a step of an edit: the editor to run (first, or again after a
// refusal), the editor exited, or the edit ended.
type editMsg struct {
	ed     *editSession
	file   *editor.File
	run    *exec.Cmd // run the editor (again: problem says why)
	exited bool
	runErr error
	// The end: a value for the form, the applied plan's outcome, a cancel
	// (why), or a failure.
	problem   error
	seen      uint64
	value     string
	out       *outcome
	cancelled string
	err       error
	// kept: the file that holds the person's text after the edit ended
	// without it (a refusal editing cannot answer, a form closed meanwhile).
	kept string
}

// multiLine reports whether a form field is edited in the editor: JSON and
// lists, which a one-line field makes hard to write.
func multiLine(f model.DecisionField) bool { return f.Type == "json" || f.Type == "array" }

// planField reports whether field i of decision d is the plan the built-in
// plan flow asks the person for (it has no planner agent).
func planField(d model.Decision, i int) bool {
	return d.Flow == "plan" && i < len(d.Fields) && d.Fields[i].Name == "plan" && d.Fields[i].Type == "json"
}

// plannerAgent reports whether the config names a planner agent, which
// writes the plan in the plan flow instead of the person.
func (m *Model) plannerAgent() bool {
	_, ok := m.cfg.Agents["planner"]
	return ok
}

// editPlanCmd opens the active session's plan (the template when it has
// none) in the editor and applies it on save.
func (m *Model) editPlanCmd() tea.Cmd {
	if e, refused := model.AsError(model.PlanEditable(m.sess)); refused {
		m.note = refusalNote(e)
		return nil
	}
	return m.startEdit(&editSession{kind: editPlan, seen: m.sessSeq()}, editor.PlanPattern, editor.PlanText(m.sess))
}

// editFormField opens field i of form d in the editor: the plan flow's plan
// (the session's plan, or the template), else the field's text.
func (m *Model) editFormField(d *decisionDialog, i int) tea.Cmd {
	ff := d.f.fields[i]
	if planField(d.f.d, i) {
		// What the field holds already, else the session's plan or the
		// template.
		text := editor.PlanText(m.sess)
		if v := strings.TrimSpace(ff.in.Value()); v != "" {
			var pretty bytes.Buffer
			if json.Indent(&pretty, []byte(v), "", "  ") == nil {
				pretty.WriteString("\n")
				text = pretty.Bytes()
			} else {
				text = []byte(v + "\n")
			}
		}
		return m.startEdit(&editSession{kind: editPlanField, form: d, field: i, def: ff.f}, editor.PlanPattern, text)
	}
	pattern := "flowdeck-" + safeName(ff.f.Name) + "-*.txt"
	if ff.f.Type == "json" {
		pattern = "flowdeck-" + safeName(ff.f.Name) + "-*.jsonc"
	}
	return m.startEdit(&editSession{kind: editField, form: d, field: i, def: ff.f}, pattern, fieldText(ff.f, ff.in.Value()))
}

// startEdit writes the file and builds the editor's command (in a command:
// both touch the disk), then runs it.
func (m *Model) startEdit(ed *editSession, pattern string, text []byte) tea.Cmd {
	if m.editing != nil {
		return nil // the editor is open: keys cannot arrive, but a message might
	}
	m.editing = ed
	return func() tea.Msg {
		f, err := editor.New(pattern, text)
		if err != nil {
			return editMsg{ed: ed, err: err}
		}
		cmd, err := f.Command()
		if err != nil {
			f.Remove()
			return editMsg{ed: ed, err: err}
		}
		return editMsg{ed: ed, file: f, run: cmd}
	}
}

func (m *Model) onEdit(msg editMsg) tea.Cmd {
	ed := msg.ed
	if msg.file != nil {
		ed.file = msg.file
	}
	if msg.seen != 0 {
		ed.seen = msg.seen
	}
	switch {
	case msg.run != nil:
		if e, ok := model.AsError(msg.problem); ok {
			m.note = refusalNote(e)
		} else if msg.problem != nil {
			m.note = errNote(msg.problem.Error())
		}
		return tea.ExecProcess(msg.run, func(err error) tea.Msg { return editMsg{ed: ed, exited: true, runErr: err} })
	case msg.exited:
		return m.saveEdit(ed, msg.runErr)
	}
	m.editing = nil
	switch {
	case msg.problem != nil:
		e, _ := model.AsError(msg.problem)
		m.note = refusalNote(e)
		m.note.lines = append(m.note.lines, "  your plan is kept in "+msg.kept)
	case msg.err != nil:
		m.note = errNote("edit: " + msg.err.Error())
	case msg.cancelled != "":
		m.note = infoNote(msg.cancelled)
		if ed.form != nil {
			m.note.lines[0] += " · " + m.keyName(keys.EditExternal) + " edits it again"
		}
	case ed.kind == editPlan:
		cmd := m.onAction(actionMsg{label: "plan edit", out: msg.out})
		m.note.lines[0] += " · " + m.keyName(keys.ApprovePlan) + " approves it, :/flow-plan edits it again"
		return cmd
	default:
		return m.fillField(ed, msg.value)
	}
	return nil
}

// fillField puts an edited value in its form field; the plan flow's plan,
// checked already, answers the form when it asks nothing else.
func (m *Model) fillField(ed *editSession, value string) tea.Cmd {
	d, f := ed.form, ed.file
	if !m.hasDialog(d) || d.f.sending || d.f.refused {
		m.note = infoNote("the form was closed meanwhile: nothing was sent; what you wrote is kept in " + f.Path)
		return nil
	}
	remove := func() tea.Msg { f.Remove(); return nil }
	ff := &d.f.fields[ed.field]
	ff.in.SetValue(value)
	ff.err = ""
	d.f.errs = nil
	if ed.kind == editPlanField && len(d.f.fields) == 1 && len(d.f.d.Options) == 0 {
		return tea.Batch(remove, m.submitDecision(d, ""))
	}
	m.note = infoNote(ff.f.Name + " filled from the editor")
	return remove
}

func (m *Model) hasDialog(d Dialog) bool {
	for _, x := range m.dialogs {
		if x == d {
			return true
		}
	}
	return false
}

// saveEdit reads what the person saved and acts on it, in a command. A plan
// that is refused goes back into the editor with the refusal on top.
func (m *Model) saveEdit(ed *editSession, runErr error) tea.Cmd {
	p, f, kind, seen, def := m.p, ed.file, ed.kind, ed.seen, ed.def
	return func() tea.Msg {
		if runErr != nil {
			return editMsg{ed: ed, cancelled: f.Cancel(fmt.Sprintf("the editor failed (%v)", runErr), nil)}
		}
		if kind == editField {
			text, err := f.Read()
			if err != nil {
				return editMsg{ed: ed, err: err}
			}
			if f.Unchanged(text) {
				f.Remove()
				return editMsg{ed: ed, cancelled: "left unchanged: the field is as it was"}
			}
			return editMsg{ed: ed, value: fieldValue(def, text)} // fillField removes the file
		}
		save, err := f.ReadPlan()
		if err != nil {
			return editMsg{ed: ed, err: err}
		}
		if save.Cancelled != "" {
			return editMsg{ed: ed, cancelled: f.Cancel(save.Cancelled, save.Text)}
		}
		msg := editMsg{ed: ed}
		if save.Problem == nil {
			if kind == editPlan {
				out, err := storeAction(p, model.PlanApply{Plan: *save.Plan}, seen)
				refusal, refused := model.AsError(err)
				switch {
				case err != nil && !refused:
					return editMsg{ed: ed, err: fmt.Errorf("plan apply: %w (your plan is kept in %s)", err, f.Path)}
				case !refused:
					f.Remove()
					return editMsg{ed: ed, out: out}
				}
				save.Problem = refusal
				if refusal.Code == model.CodeStaleDecision {
					if s, err := p.Active(); err == nil && s != nil {
						msg.seen = s.Seq // the note tells them: the next save applies to the new state
					}
				} else if !editor.Fixable(refusal) {
					return editMsg{ed: ed, problem: refusal, kept: f.Path}
				}
			} else {
				// The plan flow applies the answer itself: check it the way
				// the store will, so a refusal comes back here, not as a
				// second round of the form.
				s, err := p.Active()
				if err != nil {
					return editMsg{ed: ed, err: fmt.Errorf("%w (your plan is kept in %s)", err, f.Path)}
				}
				_, err = model.Decide(s, model.PlanApply{Plan: *save.Plan}, model.Context{Now: p.Now(), Actor: p.Actor()})
				if err == nil {
					return editMsg{ed: ed, value: compactJSON(save.Text)} // fillField removes the file
				}
				if _, refused := model.AsError(err); !refused {
					return editMsg{ed: ed, err: fmt.Errorf("%w (your plan is kept in %s)", err, f.Path)}
				}
				if !editor.Fixable(err) {
					return editMsg{ed: ed, problem: err, kept: f.Path}
				}
				save.Problem = err
			}
		}
		if err := f.Retry(save.Text, save.Problem); err != nil {
			return editMsg{ed: ed, err: err}
		}
		cmd, err := f.Command()
		if err != nil {
			return editMsg{ed: ed, err: err}
		}
		msg.run, msg.problem = cmd, save.Problem
		return msg
	}
}

// fieldText is what the editor opens for a form field holding value: a
// comment saying what it is, then the value, JSON indented and a list one
// item per line.
func fieldText(f model.DecisionField, value string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s (%s)", f.Name, typeText(f))
	if f.Description != "" {
		fmt.Fprintf(&b, ": %s", strings.ReplaceAll(f.Description, "\n", " "))
	}
	b.WriteString("\n// Save and quit to put it in the form; quit without saving to leave the field as it was.\n")
	value = strings.TrimSpace(value)
	switch f.Type {
	case "array":
		b.WriteString("// One item per line (or a JSON array); lines starting with // are left out.\n")
		var items []string
		if json.Unmarshal([]byte(value), &items) == nil {
			value = strings.Join(items, "\n")
		}
	default:
		b.WriteString("// JSON, comments allowed.\n")
		var pretty bytes.Buffer
		if json.Indent(&pretty, []byte(value), "", "  ") == nil {
			value = pretty.String()
		}
	}
	b.WriteString(value)
	if value != "" {
		b.WriteString("\n")
	}
	return b.Bytes()
}

// fieldValue is the one-line value of a form field edited as text: JSON
// (comments allowed) compacted; a list's lines as a JSON array; other text
// with its comment lines left out.
func fieldValue(f model.DecisionField, text []byte) string {
	var lines []string
	for _, l := range strings.Split(string(text), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
			lines = append(lines, l)
		}
	}
	if v := compactJSON(text); v != "" && (f.Type == "json" || strings.HasPrefix(v, "[")) {
		return v
	}
	if f.Type == "array" {
		if lines == nil {
			lines = []string{}
		}
		b, _ := json.Marshal(lines)
		return string(b)
	}
	return strings.Join(lines, " ")
}

// compactJSON is text (JSONC) as one line of JSON, "" when it is none.
func compactJSON(text []byte) string {
	std, err := hujson.Standardize(append(bytes.Clone(text), '\n')) // a last // comment needs its newline
	if err != nil {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, std) != nil {
		return ""
	}
	return b.String()
}

// safeName keeps a field's name fit for a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
