package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
	agentspane "github.com/flowdeck/flowdeck/ui/panes/agents"
)

// wait is something that waits for the person: a feature review, the final
// review, a blocked session, or a flow's pending decision.
type wait struct {
	kind    waitKind
	feature string
	reason  string // blocked: why
	// feature1: one blocked feature in a session that runs on (else the
	// session is blocked).
	feature1 bool
	// key names this occurrence: a new validation after needs_fix is a new
	// review request, so the evidence sequence is part of it.
	key      string
	decision *model.Decision
}

// waitKind says what a wait asks of the person.
type waitKind string

const (
	waitPlan     waitKind = "plan"   // approve the plan
	waitReview   waitKind = "review" // review a feature
	waitFinal    waitKind = "final"  // the final review
	waitBlocked  waitKind = "blocked"
	waitDecision waitKind = "decision" // a flow's pending decision
	// waitInterrupted is a feature whose agent crashed or gave up, with no
	// decision about it pending (a crew's run asks one, which counts itself).
	waitInterrupted waitKind = "interrupted"
)

// reasonMax bounds a wait's reason (an agent's summary or note, cut once
// when the waits are listed): the session bar draws it every frame.
const reasonMax = 200

func (w wait) String() string {
	switch w.kind {
	case waitReview:
		return "review " + w.feature
	case waitFinal:
		return "final review"
	case waitPlan:
		return "plan approval"
	case waitInterrupted:
		if w.reason != "" {
			return "interrupted " + w.feature + ": " + w.reason
		}
		return "interrupted " + w.feature
	case waitDecision:
		d := w.decision
		switch {
		case d.FlowRun == "":
			return "decision " + d.ID
		case d.Kind == model.DecisionInterrupted:
			return "interrupted " + d.FlowRun
		}
		return "decision " + d.FlowRun + " " + d.Step
	}
	what := "session blocked"
	if w.feature1 {
		what = "blocked " + w.feature
	} else if w.feature != "" {
		what += " (" + w.feature + ")"
	}
	if w.reason != "" {
		what += ": " + w.reason
	}
	return what
}

// waitsOf lists what waits in s, in plan order.
func waitsOf(s *model.Session) []wait {
	if s == nil || s.Plan == nil || s.Archived {
		return nil
	}
	var out []wait
	if s.Status != model.StatusCompleted && s.Approval != model.ApprovalApproved {
		out = append(out, wait{kind: waitPlan, key: fmt.Sprintf("plan:%s@%d", s.ID, planSince(s))})
	}
	for i := range s.Plan.Features {
		f := &s.Plan.Features[i]
		if f.Status == model.FeatureInProgress && f.Interrupted != nil {
			out = append(out, wait{kind: waitInterrupted, feature: f.ID, reason: model.FirstLine(strings.TrimSpace(f.Interrupted.Summary), reasonMax),
				key: fmt.Sprintf("interrupted:%s:%s@%d", s.ID, f.ID, f.Interrupted.Seq)})
		}
		if model.StateOf(s, f) == model.StateAwaitingReview {
			seq := uint64(0)
			if ev := model.LatestEvidence(f); ev != nil {
				seq = ev.Seq
			}
			out = append(out, wait{kind: waitReview, feature: f.ID, key: fmt.Sprintf("review:%s:%s@%d", s.ID, f.ID, seq)})
		}
	}
	if model.AwaitingFinalReview(s) {
		out = append(out, wait{kind: waitFinal, feature: s.Execution.ActiveFeature, key: fmt.Sprintf("final:%s@%d", s.ID, lastBroadSeq(s))})
	}
	if s.Status == model.StatusBlocked {
		var ids, reasons []string
		for i := range s.Plan.Features {
			if f := &s.Plan.Features[i]; f.Status == model.FeatureBlocked {
				ids = append(ids, f.ID)
				reasons = append(reasons, model.BlockReason(f, reasonMax))
			}
		}
		out = append(out, wait{kind: waitBlocked, feature: strings.Join(ids, ", "), reason: strings.Join(reasons, "; "),
			key: fmt.Sprintf("blocked:%s@%d", s.ID, blockedSince(s))})
	} else if s.Status != model.StatusCompleted {
		// A blocked feature in a session that runs on (other features are
		// active) waits for the person as much: a reset or a replan.
		for i := range s.Plan.Features {
			if f := &s.Plan.Features[i]; f.Status == model.FeatureBlocked {
				out = append(out, wait{kind: waitBlocked, feature: f.ID, reason: model.BlockReason(f, reasonMax), feature1: true,
					key: fmt.Sprintf("blocked:%s:%s@%d", s.ID, f.ID, featureBlockedSince(s, f.ID))})
			}
		}
	}
	return out
}

// featureBlockedSince is the history item that blocked feature id, so that
// a feature blocked again later rings again.
func featureBlockedSince(s *model.Session, id string) uint64 {
	h := s.Execution.History
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Feature == id && h[i].Type == model.EventFeatureBlocked {
			return h[i].Seq
		}
	}
	return 0
}

// planSince is the history item that put the current plan in place, so a
// plan applied again asks again.
func planSince(s *model.Session) uint64 {
	h := s.Execution.History
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Type == model.EventPlanApplied || h[i].Type == model.EventPlanSelected {
			return h[i].Seq
		}
	}
	return 0
}

func lastBroadSeq(s *model.Session) uint64 {
	if v := s.Execution.LastValidation; v != nil {
		return v.Seq
	}
	return 0
}

// blockedSince finds the history item that blocked the session, so that a
// session blocked again later rings again.
func blockedSince(s *model.Session) uint64 {
	h := s.Execution.History
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Type == model.EventSessionBlocked || h[i].Type == model.EventFeatureBlocked {
			return h[i].Seq
		}
	}
	return 0
}

// sessionWaits are the session's waits, less the reviews a flow asks for
// itself: a review is asked once, in the flow's decision. With several
// agents, a `run` flow asks only for its own feature's review.
func (m *Model) sessionWaits() []wait {
	ws := waitsOf(m.sess)
	reviews := m.flowReviews()
	out := ws[:0]
	for _, w := range ws {
		switch {
		case reviews && (w.kind == waitReview || w.kind == waitFinal) && m.flowAsks(w.feature):
		case w.kind == waitInterrupted && m.flowDecides(w.feature):
		case w.kind == waitPlan && m.flowAsksPlanApproval():
			// The plan flow's own question is the approval: counted once.
		default:
			out = append(out, w)
		}
	}
	return out
}

// asksPlanApproval reports whether d is a plan flow's question whether to
// approve the plan (its review step).
func (m *Model) asksPlanApproval(d *model.Decision) bool {
	flow := d.Flow
	if r := m.flowRun(d.FlowRun); r != nil {
		flow = r.Flow
	}
	return flow == "plan" && slices.ContainsFunc(d.Options, func(o model.DecisionOption) bool { return o.ID == "approve" })
}

func (m *Model) flowAsksPlanApproval() bool {
	for i := range m.decisions {
		if m.asksPlanApproval(&m.decisions[i]) {
			return true
		}
	}
	return false
}

// reviewName names the review a flow asks for on feature: the session's
// final review once the last feature's completion waits for it.
func (m *Model) reviewName(feature string) string {
	if model.AwaitingFinalReview(m.sess) {
		return "final review"
	}
	return "review " + feature
}

// waitLabel is how the session bar and the title name a wait: a flow's
// question by what it asks when that is known (the plan's approval, a
// review), else by its run and step.
func (m *Model) waitLabel(w wait) string {
	if w.kind != waitDecision || w.decision.FlowRun == "" {
		return w.String()
	}
	d := w.decision
	switch {
	case m.asksPlanApproval(d):
		return "plan approval (" + d.FlowRun + ")"
	case agentspane.IsReview(d) && model.AwaitingFinalReview(m.sess):
		return "final review (" + d.FlowRun + ")"
	}
	return w.String()
}

// flowDecides reports whether a pending decision of a run flow on feature
// waits (an interrupted agent's retry/reassign/reset): it counts, so the
// interruption does not count twice.
func (m *Model) flowDecides(feature string) bool {
	for _, d := range m.decisions {
		if r := m.flowRun(d.FlowRun); r != nil {
			if flows.RunString(r, flows.VarFeature) == feature {
				return true
			}
		}
	}
	return false
}

// flowAsks reports whether a flow run asks for feature's review: a pending
// review decision of a run on it, or a live run/auto/review flow on it. A
// run whose feature is not known yet (or an auto or review flow) may ask
// for any.
func (m *Model) flowAsks(feature string) bool {
	covers := func(r *model.FlowRun) bool {
		f := flows.RunString(r, flows.VarFeature)
		return r.Flow != "run" || f == "" || f == feature
	}
	for _, d := range m.decisions {
		if !agentspane.IsReview(&d) {
			continue
		}
		r := m.flowRun(d.FlowRun)
		if r == nil || covers(r) {
			return true
		}
	}
	for i := range m.flowRuns {
		r := &m.flowRuns[i]
		if !model.FlowEnded(r.Status) && r.Status != model.FlowInterrupted && (r.Flow == "run" || r.Flow == "auto" || r.Flow == "review") && covers(r) {
			return true
		}
	}
	return false
}

// flowRun is the loaded flow run id, or nil.
func (m *Model) flowRun(id string) *model.FlowRun {
	for i := range m.flowRuns {
		if m.flowRuns[i].ID == id {
			return &m.flowRuns[i]
		}
	}
	return nil
}

// flowReviews reports whether a flow run asks for the review itself: a
// pending decision offers the review's verdicts, or a run of a flow that
// reviews (run, auto, review) is under way and will ask.
func (m *Model) flowReviews() bool {
	for _, d := range m.decisions {
		if agentspane.IsReview(&d) {
			return true
		}
	}
	for _, r := range m.flowRuns {
		if !model.FlowEnded(r.Status) && r.Status != model.FlowInterrupted && (r.Flow == "run" || r.Flow == "auto" || r.Flow == "review") {
			return true
		}
	}
	return false
}

// decisionWaits are the pending decisions, oldest first.
func decisionWaits(ds []model.Decision) []wait {
	out := make([]wait, 0, len(ds))
	for i := range ds {
		out = append(out, wait{kind: waitDecision, key: decisionWaitKey(ds[i].ID), decision: &ds[i]})
	}
	return out
}

// updateWaits recomputes what waits. When something new starts waiting the
// bell fires once (not on the first load: the person is looking already) and
// a review opens its prompt. A decision prompt opens whenever none is open
// and a decision waits that the person has not put off (esc).
func (m *Model) updateWaits(first bool) tea.Cmd {
	m.waits = append(m.sessionWaits(), decisionWaits(m.decisions)...)
	m.closeStalePrompt()
	keys := make(map[string]bool, len(m.waits))
	var fresh []wait
	for _, w := range m.waits {
		if w.kind == waitReview && m.verifying(w.feature) {
			// The cockpit is still running this feature's verification:
			// its review waits for the last command. Left unseen, it rings
			// and prompts on the reload after the job.
			continue
		}
		keys[w.key] = true
		if !m.waitKeys[w.key] {
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
		if (w.kind == waitReview || w.kind == waitFinal) && !m.dismissed[w.key] && m.waitKeys[w.key] {
			return m.openReviewPrompt(w, true)
		}
	}
	for _, w := range m.waits {
		if w.kind == waitDecision && !m.dismissed[w.key] && !m.answering[w.decision.ID] {
			return m.openDecisionPrompt(*w.decision, true)
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
		if w.key == key {
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
				return fmt.Sprintf("%s closed: %s (by %s at %s)", what, h[i].Summary, h[i].Actor, h[i].At.UTC().Format("15:04:05"))
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
		return fmt.Sprintf("decision %s closed: %s by %s at %s", id, how, d.Resolution.Actor, d.Resolution.At.UTC().Format("15:04:05"))
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
