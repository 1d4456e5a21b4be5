package agents

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// State is what an agent is doing, as the person reads it.
type State string

// The states, in the order a person acts on them.
const (
	WaitingReview   State = "waiting for review"
	WaitingDecision State = "waiting for a decision"
	Failed          State = "failed"
	Paused          State = "paused"
	Working         State = "working"
	Idle            State = "idle"
)

// Waits reports whether the state waits for the person.
func (s State) Waits() bool { return s == WaitingReview || s == WaitingDecision }

// Agent is one row of the pane: an agent, what it works on and how it is
// doing. Derive fills everything but Last, which the root reads from the
// agent's run output.
type Agent struct {
	Name    string // "" is a claim nobody named (run start without --agent)
	Feature string // the claimed feature, else the last one it worked on
	State   State
	// Since is when the state began (zero: unknown); the pane shows the
	// time elapsed since.
	Since time.Time
	// FlowRun is the agent's current (else latest) flow run; Decision the
	// pending decision it waits on.
	FlowRun  string
	Decision string
	// Run is the agent's newest run record; RunBytes how much it printed.
	Run        string
	RunBytes   int64
	RunRunning bool
	// Detail says why, when the state alone does not: a step, an error.
	Detail string
	// Last is the last line the agent's newest run printed (clean text).
	Last string
}

// IdleEvent is an agent's harness saying it went idle (db.AgentEvent).
type IdleEvent struct {
	Agent string
	At    time.Time
}

// Input is what the cockpit loaded; Derive reads nothing else.
type Input struct {
	Session  *model.Session
	FlowRuns []model.FlowRun // newest first
	// Executing holds the unfinished flow runs a process executes now: a
	// run stored "running" without one lost its process (its crew
	// scheduler died) and reads interrupted (model.FlowStateOf).
	Executing map[string]bool
	Decisions []model.Decision  // pending
	Runs      []model.RunRecord // newest first
	Idle      []IdleEvent
}

// FlowAgent is the agent a flow run works for: its flows.VarAgent variable
// (the crew scheduler sets it on each worker's run flow), when it is an
// agent's name, else "".
func FlowAgent(r *model.FlowRun) string {
	if a := flows.RunString(r, flows.VarAgent); model.ValidAgentName(a) {
		return a
	}
	return ""
}

// flowFeature is the feature a flow run works on: its flows.VarFeature
// variable, when it is a feature id (variables are the flow's, not cleaned).
func flowFeature(r *model.FlowRun) string {
	if f := flows.RunString(r, flows.VarFeature); model.ValidFeatureID(f) {
		return f
	}
	return ""
}

// isFailure reports whether a decision asks what to do about a failed
// agent: the run flow's retry, reassign or reset.
func isFailure(d *model.Decision) bool { return d.Offers("retry", "reassign") }

// Derive lists the agents: every agent that holds a claim, runs a flow,
// last worked on a feature or reported itself idle, sorted by name
// (worker-2 before worker-10). A claim nobody named is a row too.
func Derive(in Input) []Agent {
	d := deriver{in: in, claims: map[string]model.ActiveClaim{}, flows: map[string]*model.FlowRun{}}
	d.collect()
	out := make([]Agent, 0, len(d.names))
	for _, name := range d.names {
		out = append(out, d.agent(name))
	}
	slices.SortStableFunc(out, func(a, b Agent) int { return natCompare(a.Name, b.Name) })
	return out
}

type deriver struct {
	in     Input
	names  []string
	seen   map[string]bool
	claims map[string]model.ActiveClaim // by agent
	flows  map[string]*model.FlowRun    // by agent: its newest
	last   map[string]*model.Feature    // by agent: the feature it last claimed
}

func (d *deriver) add(name string) {
	if !d.seen[name] {
		d.seen[name] = true
		d.names = append(d.names, name)
	}
}

// collect finds the agents and, for each, its claim and newest flow run.
func (d *deriver) collect() {
	d.seen, d.last = map[string]bool{}, map[string]*model.Feature{}
	s := d.in.Session
	byFeature := map[string]string{}
	for _, c := range model.ActiveClaims(s) {
		d.claims[c.Agent] = c
		byFeature[c.Feature] = c.Agent
		d.add(c.Agent)
	}
	for i := range d.in.FlowRuns {
		r := &d.in.FlowRuns[i]
		a := FlowAgent(r)
		if a == "" {
			// A run without the variable works for whoever claimed its
			// feature, while that claim holds.
			holder, ok := byFeature[flowFeature(r)]
			if !ok || flowFeature(r) == "" {
				continue
			}
			a = holder
		}
		if _, ok := d.flows[a]; !ok {
			d.flows[a] = r
			d.add(a)
		}
	}
	if s != nil && s.Plan != nil {
		for i := range s.Plan.Features {
			f := &s.Plan.Features[i]
			if f.Agent == "" {
				continue
			}
			if prev := d.last[f.Agent]; prev == nil || f.StartedSeq > prev.StartedSeq {
				d.last[f.Agent] = f
			}
			d.add(f.Agent)
		}
	}
	for _, e := range d.in.Idle {
		if model.ValidAgentName(e.Agent) {
			d.add(e.Agent)
		}
	}
}

// agent derives one agent's row.
func (d *deriver) agent(name string) Agent {
	a := Agent{Name: name}
	s := d.in.Session
	claim, claimed := d.claims[name]
	var f *model.Feature
	switch {
	case claimed && s != nil && s.Plan != nil:
		f = s.Plan.Feature(claim.Feature)
	case d.last[name] != nil:
		f = d.last[name]
	}
	if f != nil {
		a.Feature = f.ID
	}
	fr := d.flows[name]
	if fr != nil {
		a.FlowRun = fr.ID
		if a.Feature == "" {
			a.Feature = flowFeature(fr)
		}
	}
	d.newestRun(&a, fr, claimed)
	dec := d.pending(fr)
	if dec != nil {
		a.Decision = dec.ID
	}
	d.state(&a, f, fr, dec, claimed)
	return a
}

// state picks the row's state: what waits for the person first, then what
// went wrong, then whether the agent works at all.
func (d *deriver) state(a *Agent, f *model.Feature, fr *model.FlowRun, dec *model.Decision, claimed bool) {
	s := d.in.Session
	fs := model.FeatureState("")
	if f != nil && s != nil {
		fs = model.StateOf(s, f)
	}
	var st model.FlowState
	if fr != nil {
		st = model.FlowStateOf(fr, d.in.Executing[fr.ID])
	}
	// A live flow run asks for (or records) its feature's review itself:
	// until its decision appears the agent is at work.
	flowLive := fr != nil && !st.Ended() && st != model.FlowStateInterrupted && st != model.FlowStatePaused
	switch {
	case dec != nil && dec.Kind == model.DecisionInterrupted:
		a.State, a.Since, a.Detail = Failed, dec.Created, "its flow run was cut off: retry, skip or cancel ("+dec.ID+")"
	case dec != nil && isFailure(dec):
		a.State, a.Since, a.Detail = Failed, dec.Created, "retry, reassign or reset? ("+dec.ID+")"
	case dec != nil && dec.IsReview():
		a.State, a.Since, a.Detail = WaitingReview, dec.Created, "decision "+dec.ID
	case dec != nil:
		a.State, a.Since, a.Detail = WaitingDecision, dec.Created, firstLine(dec.Prompt)
	case claimed && fs == model.StateAwaitingReview && !flowLive:
		a.State, a.Detail = WaitingReview, "validation passed"
		if ev := model.LatestEvidence(f); ev != nil {
			a.Since = ev.At
		}
	case claimed && fs == model.StateInterrupted && !flowLive:
		a.State, a.Since, a.Detail = Failed, f.Interrupted.At, "interrupted: "+firstLine(f.Interrupted.Summary)
	case st == model.FlowStateFailed || st == model.FlowStateRefused:
		a.State, a.Since, a.Detail = Failed, fr.Updated, "flow run "+string(fr.Status)+": "+firstLine(fr.Error)
	case st == model.FlowStatePaused:
		a.State, a.Since, a.Detail = Paused, fr.Updated, "paused at step "+fr.Step
	case st == model.FlowStateInterrupted:
		a.State, a.Since, a.Detail = Failed, fr.Updated, "no process executes its flow run (stopped at step "+fr.Step+")"
	case claimed && fr != nil && fr.Status == model.FlowCancelled:
		a.State, a.Since, a.Detail = Failed, fr.Updated, "its flow run was cancelled; the feature is still claimed"
	case claimed:
		a.State, a.Since = Working, d.startedAt(f, fr)
		switch {
		case fs == model.StateNeedsFix:
			a.Detail = "fixing what the review or verification found"
		case st == model.FlowStatePausing:
			a.Detail = "pausing after step " + fr.Step
		case flowLive:
			a.Detail = "step " + fr.Step
		}
	case flowLive:
		// Its flow runs but holds no claim: it is about to claim one.
		a.State, a.Since, a.Detail = Working, fr.Created, "step "+fr.Step
	case f != nil && f.Status == model.FeatureBlocked:
		a.State, a.Detail = Failed, "blocked: "+firstLine(f.OutcomeNote)
		a.Since = d.historyAt(f.ID, model.EventFeatureBlocked)
	default:
		a.State = Idle
		d.idleSince(a, f, fr)
	}
}

// pending is the decision the agent's flow run waits on.
func (d *deriver) pending(fr *model.FlowRun) *model.Decision {
	if fr == nil || model.FlowEnded(fr.Status) {
		return nil
	}
	for i := range d.in.Decisions {
		if dd := &d.in.Decisions[i]; dd.FlowRun == fr.ID && dd.Status == model.DecisionPending {
			return dd
		}
	}
	return nil
}

// newestRun is the agent's newest command: one its flow run ran, else one
// run for its claimed feature; never a flow's plumbing (its stored JSON).
func (d *deriver) newestRun(a *Agent, fr *model.FlowRun, claimed bool) {
	for i := range d.in.Runs {
		r := &d.in.Runs[i]
		if r.Internal {
			continue
		}
		if fr != nil && r.FlowRun == fr.ID || claimed && a.Feature != "" && r.Feature == a.Feature && (r.FlowRun == "" || fr == nil) {
			a.Run, a.RunBytes, a.RunRunning = r.ID, r.Bytes, r.Outcome == model.RunRunning
			return
		}
	}
}

// startedAt is when the agent claimed f: the history item of the claim,
// else its flow run's start.
func (d *deriver) startedAt(f *model.Feature, fr *model.FlowRun) time.Time {
	if s := d.in.Session; f != nil && s != nil {
		for _, h := range s.Execution.History {
			if h.Seq == f.StartedSeq {
				return h.At
			}
		}
	}
	if fr != nil {
		return fr.Created
	}
	return time.Time{}
}

// historyAt is when the newest history item of type t about feature id
// happened (zero when it fell out of the bounded history).
func (d *deriver) historyAt(id string, t model.EventType) time.Time {
	s := d.in.Session
	if s == nil {
		return time.Time{}
	}
	h := s.Execution.History
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Feature == id && h[i].Type == t {
			return h[i].At
		}
	}
	return time.Time{}
}

// idleSince is when the agent stopped: its harness's idle event, its flow
// run's end, or the completion of its last feature, whichever is newest.
func (d *deriver) idleSince(a *Agent, f *model.Feature, fr *model.FlowRun) {
	for _, e := range d.in.Idle {
		if e.Agent == a.Name && e.At.After(a.Since) {
			a.Since = e.At
		}
	}
	if fr != nil && fr.Ended != nil && fr.Ended.After(a.Since) {
		a.Since = *fr.Ended
	}
	if f != nil && f.Status == model.FeatureCompleted {
		if t := d.historyAt(f.ID, model.EventFeatureCompleted); t.After(a.Since) {
			a.Since = t
		}
		a.Detail = "completed " + f.ID
	}
}

// detailMax bounds the foreign text (a prompt, an error, a summary: up to
// megabytes) a row's detail takes, once here, so View cuts and cleans a
// short string each frame. No terminal row shows more.
const detailMax = 300

func firstLine(s string) string { return model.FirstLine(strings.TrimSpace(s), detailMax) }

// natCompare orders names with their trailing numbers as numbers:
// worker-2 before worker-10; "" (an unnamed claim) last.
func natCompare(a, b string) int {
	if (a == "") != (b == "") {
		if a == "" {
			return 1
		}
		return -1
	}
	pa, na := splitNum(a)
	pb, nb := splitNum(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil || len(s)-i > 9 {
		return s, -1
	}
	return s[:i], n
}
