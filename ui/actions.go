package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui/keys"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// actionMsg is the result of one action run against the store.
type actionMsg struct {
	label string
	out   *outcome
	err   error
}

// outcome is what an action stored: the session after it and its events.
type outcome struct {
	Session *model.Session
	Events  []model.Event
}

// do runs an action in a command: the project's Do opens the file, locks,
// writes and renders docs; none of that may happen in Update.
func (m *Model) do(label string, a model.Action) tea.Cmd {
	return m.doSeen(label, a, m.sessSeq())
}

// doSeen runs an action decided on the session as of sequence seen: the
// store refuses it (stale_decision) if what it decides changed since.
func (m *Model) doSeen(label string, a model.Action, seen uint64) tea.Cmd {
	p := m.p
	m.note = infoNote(label + "…")
	return func() tea.Msg {
		out, err := storeAction(p, a, seen)
		return actionMsg{label: label, out: out, err: err}
	}
}

// storeAction stores a through the project's one action path, which
// redacts it first as the CLI and MCP paths do, and hands back the outcome
// and the refusal as an error.
func storeAction(p *project.Project, a model.Action, seen uint64) (*outcome, error) {
	res, err := p.Do(a, seen, true)
	if err != nil {
		return nil, err
	}
	var out *outcome
	if res.State != nil || res.Raw != nil {
		out = &outcome{Session: res.State, Events: res.Raw}
	}
	if res.Error != nil {
		return out, res.Error
	}
	return out, nil
}

// onAction shows the result and swaps in the new session at once (no wait
// for the next poll), then reloads the session list.
func (m *Model) onAction(msg actionMsg) tea.Cmd {
	var cmds []tea.Cmd
	refusal, refused := model.AsError(msg.err)
	switch {
	case msg.err != nil && !refused:
		m.note = errNote(msg.label + " failed: " + msg.err.Error())
	case refused:
		m.note = refusalNote(refusal)
	default:
		m.note = okNote(describeEvents(msg.out))
	}
	if msg.out != nil && len(msg.out.Events) > 0 {
		if msg.out.Session != nil {
			cmds = append(cmds, m.setSession(msg.out.Session))
		}
		// Loads issued before now may predate this action: ignore them.
		m.minLoad = m.loadSeq + 1
		cmds = append(cmds, m.loadCmd())
	}
	return tea.Batch(cmds...)
}

// review records a review decision on a feature or the session.
func (m *Model) review(feature string, final bool, d model.ReviewDecision, findings []string, seen uint64) tea.Cmd {
	if final {
		return m.doSeen("final review: "+string(d), model.ReviewFinal{Decision: d, Findings: findings}, seen)
	}
	return m.doSeen("review of "+feature+": "+string(d), model.ReviewFeature{Feature: feature, Decision: d, Findings: findings}, seen)
}

// sessSeq is the sequence of the session on screen (0: none).
func (m *Model) sessSeq() uint64 {
	if m.sess == nil {
		return 0
	}
	return m.sess.Seq
}

// reviewTarget says what a/x/b mean for the selected feature: its own review,
// or the session's final review when the selection is the active feature and
// the session waits for it.
func (m *Model) reviewTarget() (feature string, final bool) {
	if m.sess != nil && model.AwaitingFinalReview(m.sess) && m.sel == m.sess.Execution.ActiveFeature {
		return m.sel, true
	}
	return m.sel, false
}

// featureKey is a key that acts on the selected feature. It works only in
// the panes that show features, and never writes by itself: it opens the
// dialog that names the feature and what would happen, so a letter typed
// for something else cannot start, verify, review or reset anything.
func (m *Model) featureKey(a keys.Action) tea.Cmd {
	switch m.focus {
	case layout.Features, layout.DAG, layout.Detail:
	default:
		m.note = infoNote(m.keyName(a) + " acts on the selected feature: " + m.keyName(keys.Pane1) + " focuses the features")
		return nil
	}
	switch a {
	case keys.Start:
		return m.startStart()
	case keys.Verify:
		return m.startVerify()
	case keys.Reset:
		return m.startReset()
	case keys.ResetSession:
		return m.startResetSession()
	case keys.ApprovePlan:
		return m.startApprovePlan()
	case keys.Complete1:
		return m.startComplete(m.sel, model.OutcomeCompleted, "")
	}
	if a == keys.Approve && m.planWaits() {
		// Before the plan is approved, the only approval there is.
		return m.startApprovePlan()
	}
	f, final := m.reviewTarget()
	if f == "" {
		m.note = errNote("no feature selected")
		return nil
	}
	w, ok := m.waitFor(f, final)
	switch {
	case !ok && ops.FlowReviews(m.decisions, m.flowRuns) && len(m.decisions) > 0:
		m.note = infoNote("a flow run asks for this review: " + m.keyName(keys.Open) + " in the flow pane answers it")
		return nil
	case !ok:
		m.note = errNote(f + " does not wait for a review (" + m.stateText(f) + ")")
		return nil
	}
	if a == keys.Approve {
		m.openReviewPrompt(w, false)
		return nil
	}
	return m.openFindings(f, final, reviewDecision(a), nil)
}

// waitFor finds the review (or final review) wait of feature f.
func (m *Model) waitFor(f string, final bool) (wait, bool) {
	for _, w := range m.waits {
		if (final && w.Kind == waitFinal) || (!final && w.Kind == waitReview && w.Feature == f) {
			return w, true
		}
	}
	return wait{}, false
}

// stateText is a feature's state in words, for refusals.
func (m *Model) stateText(id string) string {
	if m.sess == nil || m.sess.Plan == nil || m.sess.Plan.Feature(id) == nil {
		return "not in the plan"
	}
	return strings.ReplaceAll(string(model.StateOf(m.sess, m.sess.Plan.Feature(id))), "_", " ")
}

// planWaits reports whether the plan waits for approval.
func (m *Model) planWaits() bool {
	s := m.sess
	return s != nil && s.Plan != nil && !s.Archived && s.Status != model.StatusCompleted && s.Approval != model.ApprovalApproved
}

// startApprovePlan asks before approving the plan, naming what it holds.
func (m *Model) startApprovePlan() tea.Cmd {
	if !m.planWaits() {
		m.note = errNote("no plan waits for approval")
		return nil
	}
	p := m.sess.Plan
	body := []string{fmt.Sprintf("%s · %d features", p.Summary, len(p.Features))}
	body = append(body, wrapList("", m.feats.IDs(), m.w-4)...)
	body = append(body, "Approving lets agents start its features in dependency order.")
	m.openConfirm("Approve the plan of "+m.sess.ID+"?", body, model.PlanApprove{}, "plan approve")
	return nil
}

// startComplete asks before ending a feature with a worker outcome.
func (m *Model) startComplete(id string, o model.Outcome, summary string) tea.Cmd {
	if id == "" {
		m.note = errNote("no feature selected")
		return nil
	}
	body := []string{"Ends " + id + " as " + string(o) + "; completion checks its evidence and review."}
	if summary != "" {
		body = append(body, "summary: "+summary)
	}
	m.openConfirm("Complete "+id+" ("+string(o)+")?", body, model.RunComplete{Feature: id, Outcome: o, Summary: summary}, "complete "+id)
	return nil
}

// startStart asks before starting the selected feature (or, with none, the
// first runnable one).
func (m *Model) startStart() tea.Cmd {
	if m.sel == "" {
		m.openConfirm("Start the first runnable feature?", []string{"Makes it the active feature."}, runStart(""), "start")
		return nil
	}
	m.openConfirm("Start "+m.sel+"?", []string{"Makes " + m.sel + " the active feature; agents and v work on it next."}, runStart(m.sel), "start "+m.sel)
	return nil
}

// startReset asks before resetting the selected feature, naming every
// feature downstream that the reset takes along.
func (m *Model) startReset() tea.Cmd {
	if m.sess == nil || m.sess.Plan == nil || m.sel == "" {
		m.note = errNote("no feature selected")
		return nil
	}
	down := model.Downstream(m.sess.Plan.Features, m.sel)
	body := []string{"Resets " + m.sel + " to pending, dropping its evidence and reviews."}
	if f := m.sess.Plan.Feature(m.sel); f != nil {
		if why := model.BlockReason(f, reasonMax); why != "" {
			body = append([]string{"Blocked: " + why}, body...)
		}
	}
	if len(down) == 0 {
		body = append(body, "Nothing depends on it.")
	} else {
		body = append(body, wrapList(fmt.Sprintf("Also resets %d downstream: ", len(down)), down, m.w-4)...)
	}
	if merged, _ := model.ResetMerges(m.sess, m.sel); len(merged) > 0 {
		body = append(body, wrapList("Takes the merged work of these back out of "+m.sess.Git.Integration+": ", merged, m.w-4)...)
	}
	m.openConfirm("Reset "+m.sel+"?", body, model.ResetFeature{Feature: m.sel}, "reset "+m.sel)
	return nil
}

func (m *Model) startResetSession() tea.Cmd {
	if m.sess == nil {
		m.note = errNote("there is no active session")
		return nil
	}
	body := []string{
		"Archives session " + m.sess.ID + " (" + m.sess.Goal + ").",
		"It stays in history; /flow-session " + m.sess.ID + " re-activates it.",
	}
	m.openConfirm("Reset the session?", body, model.ResetSession{}, "reset session")
	return nil
}

// wrapList writes "prefix a, b, c" over as many lines as width needs.
func wrapList(prefix string, items []string, width int) []string {
	return layout.Wrap(prefix+strings.Join(items, ", "), width, "  ")
}

// describeEvents is the one-line summary of what an action stored.
func describeEvents(out *outcome) string {
	if out == nil || len(out.Events) == 0 {
		return "done"
	}
	parts := make([]string, 0, len(out.Events))
	for _, ev := range out.Events {
		parts = append(parts, model.Describe(ev))
	}
	return strings.Join(parts, " · ")
}

func runStart(id string) model.Action { return model.RunStart{Feature: id} }

func reviewDecision(a keys.Action) model.ReviewDecision {
	if a == keys.Block {
		return model.ReviewBlocked
	}
	return model.ReviewNeedsFix
}
