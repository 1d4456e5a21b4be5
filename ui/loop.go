package ui

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/cmdline"
)

// The whole loop from the command line: apply a plan file, record
// validation, complete a feature, review one. Whatever decides goes
// through a dialog that names it.

// applyPlanFile reads a plan file (relative to the project root) and
// applies it; the read happens in the command.
func (m *Model) applyPlanFile(name string) tea.Cmd {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.root(), name)
	}
	proj, seen, root := m.p, m.sessSeq(), m.root()
	label := "plan apply " + name
	m.note = infoNote(label + "…")
	return func() tea.Msg {
		// Opened as the command line opens a file the person names: a FIFO
		// planted where the plan was expected cannot hang the command, and
		// a link in the project that leads out of it is refused.
		f, err := contain.OpenNamed(root, path)
		if err != nil {
			return actionMsg{label: label, err: fmt.Errorf("read plan: %w", err)}
		}
		// One byte past the limit is enough for ParsePlan to refuse it.
		data, err := io.ReadAll(io.LimitReader(f, model.MaxPlanBytes+1))
		f.Close()
		if err != nil {
			return actionMsg{label: label, err: fmt.Errorf("read plan %s: %w", path, err)}
		}
		p, err := model.ParsePlan(data)
		if err != nil {
			return actionMsg{label: label, err: fmt.Errorf("plan %s: %w", name, err)}
		}
		out, err := storeAction(proj, model.PlanApply{Plan: *p}, seen)
		return actionMsg{label: label, out: out, err: err}
	}
}

// completeCommand: /flow-complete FEATURE [OUTCOME] [SUMMARY].
func (m *Model) completeCommand(c cmdline.Command) (tea.Cmd, error) {
	if len(c.Args) == 0 {
		return nil, usage(c.Name)
	}
	o, summary := model.OutcomeCompleted, ""
	if len(c.Args) > 1 {
		switch v := model.Outcome(c.Args[1]); v {
		case model.OutcomeCompleted, model.OutcomeReplanRequired, model.OutcomeBlocked:
			o = v
			summary = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(c.Rest, c.Args[0]), " "+c.Args[1]))
		default:
			return nil, usageError("outcome " + c.Args[1] + ": one of completed, replan_required, blocked")
		}
	}
	return m.startComplete(c.Args[0], o, summary), nil
}

// validateCommand: /flow-validate FEATURE STATUS SCOPE CMD records reported
// evidence.
func (m *Model) validateCommand(c cmdline.Command) (tea.Cmd, error) {
	if len(c.Args) < 4 {
		return nil, usage(c.Name)
	}
	st, sc := model.ValidationStatus(c.Args[1]), model.Scope(c.Args[2])
	if st != model.ValidationPassed && st != model.ValidationFailed && st != model.ValidationPartial {
		return nil, usageError("status " + c.Args[1] + ": one of passed, failed, partial")
	}
	if sc != model.ScopeTargeted && sc != model.ScopeBroad {
		return nil, usageError("scope " + c.Args[2] + ": targeted or broad")
	}
	cmd := strings.Join(c.Args[3:], " ")
	return m.do("validate "+c.Args[0], model.Validate{Feature: c.Args[0], Status: st, Scope: sc, Command: cmd, Source: model.SourceReported}), nil
}

// reviewCommand: /flow-review FEATURE|final DECISION [FINDINGS; …] asks in
// a dialog naming the feature and the decision.
func (m *Model) reviewCommand(c cmdline.Command) (tea.Cmd, error) {
	if len(c.Args) < 2 {
		return nil, usage(c.Name)
	}
	d := model.ReviewDecision(c.Args[1])
	if d != model.ReviewApproved && d != model.ReviewNeedsFix && d != model.ReviewBlocked {
		return nil, usageError("decision " + c.Args[1] + ": approved, needs_fix or blocked")
	}
	findings := SplitFindings(strings.Join(c.Args[2:], " "))
	if d == model.ReviewNeedsFix && len(findings) == 0 {
		return nil, usageError("needs_fix needs at least one finding after the decision")
	}
	var a model.Action = model.ReviewFeature{Feature: c.Args[0], Decision: d, Findings: findings}
	what, label := "the review of "+c.Args[0], "review of "+c.Args[0]+": "+string(d)
	if c.Args[0] == "final" {
		a, what, label = model.ReviewFinal{Decision: d, Findings: findings}, "the final review", "final review: "+string(d)
	}
	body := []string{"Records " + string(d) + " as " + m.actor + "."}
	if len(findings) > 0 {
		body = append(body, "findings: "+strings.Join(findings, "; "))
	}
	m.openConfirm("Record "+what+": "+string(d)+"?", body, a, label)
	return nil, nil
}

// canRun says why /flow-run ID would not run that feature: the run flow
// starts it, and the model would refuse.
func (m *Model) canRun(args []string) error {
	if m.sess == nil {
		return usageError("no active session: /flow-plan GOAL plans one")
	}
	if len(args) == 0 {
		return nil
	}
	id := args[0]
	if m.sess.Execution.ActiveFeature == id {
		return nil // the flow continues the active feature
	}
	if _, err := model.Decide(m.sess, model.RunStart{Feature: id}, model.Context{Now: m.now(), Actor: m.actor}); err != nil {
		if e, ok := model.AsError(err); ok {
			return usageError(fmt.Sprintf("cannot run %s: %s (%s)", id, e.Message, e.Code))
		}
		return usageError("cannot run " + id + ": " + err.Error())
	}
	return nil
}
