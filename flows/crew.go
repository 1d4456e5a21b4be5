package flows

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// Crew is the agent scheduler behind `flows run auto --parallel N`: it keeps
// up to Parallel worker agents busy (at most the plan's max_parallel), each
// running the run flow on one feature as its own flow run. The scheduler
// claims the feature for the agent (the first claimable one in critical-path
// order, model.ClaimOrder) and starts a run of Flow with the feature, the
// agent's name, the crew marker and claimed (CrewVars); when a run ends, its slot claims the
// next feature. It stops when the session completes or nothing is claimable
// and nothing runs. A run that waits for a person (a review, an agent that
// failed) keeps its slot and its claim while the others carry on. Runs of
// an earlier scheduler that died are adopted (resumed) before anything new
// is claimed.
type Crew struct {
	Engine   *Engine // the template of every slot's engine (which waits for decisions)
	Flow     *flowfile.Flow
	Source   string
	Parallel int
	// Vars are given to every run (trust_reviewer, worktree, …); the
	// scheduler's own (CrewVars) are set after them, so no var can move a
	// slot to another feature or agent or make its run un-adoptable.
	Vars map[string]any
	// Prefix names the agents: Prefix-1 … Prefix-N (default worker).
	Prefix string
	// NoWait returns once every slot's run waits for a person (or nothing
	// more can be claimed) instead of waiting for the answers; a run that
	// waits keeps its slot and claim, and the next scheduler adopts it.
	NoWait bool
	// Do performs the scheduler's claims (model.RunStart for an agent) and
	// returns the events stored, or the refusal as a *model.Error. It is
	// required: it is the project's action path (project.ActionPath), the
	// one that makes the feature's worktree and redacts, which the store's
	// own Do would bypass.
	Do func(a model.Action, actor string) ([]model.Event, error)
}

// VarCrew marks a run the crew scheduler started, so that a later scheduler
// can adopt it.
const VarCrew = "crew"

// VarClaimed tells the run flow that the scheduler claimed its feature for
// its agent already: it checks the claim instead of claiming again.
const VarClaimed = "claimed"

// CrewVars are the vars the scheduler sets on each run it starts; a caller
// may not set them.
var CrewVars = []string{VarAgent, VarCrew, VarFeature, VarClaimed}

// CrewRun is one run the scheduler started or adopted, and how it ended.
type CrewRun struct {
	Agent   string           `json:"agent"`
	Feature string           `json:"feature"`
	Run     string           `json:"run"`
	Status  model.FlowStatus `json:"status"`
	Step    string           `json:"step,omitempty"`
	Adopted bool             `json:"adopted,omitempty"`
	Error   string           `json:"error,omitempty"`
	// Decision is what the run waits for (NoWait).
	Decision string `json:"decision,omitempty"`
}

// CrewReport is what a scheduler did.
type CrewReport struct {
	Slots   int                 `json:"slots"`
	Runs    []CrewRun           `json:"runs"`
	Session model.SessionStatus `json:"session_status"`
	// Reason says why it stopped: completed, or what keeps the rest waiting.
	Reason string `json:"reason"`
}

// OK is the scheduler's exit as the sequential auto loop's would be: the
// session completed, or no run failed, was refused or cancelled (a run
// that stopped at a blocked feature ended as its flow says, and one that
// waits for a person with NoWait is fine). A scheduler that ran nothing
// on an unfinished session is not OK: the sequential loop would refuse.
func (r *CrewReport) OK() bool {
	if r.Session == model.StatusCompleted {
		return true
	}
	if len(r.Runs) == 0 {
		return false
	}
	for _, run := range r.Runs {
		switch {
		case run.Error != "", run.Status == model.FlowFailed, run.Status == model.FlowRefused, run.Status == model.FlowCancelled:
			return false
		}
	}
	return true
}

// crewState is one scheduler's bookkeeping: which agents are busy and how
// many runs are under way.
type crewState struct {
	c       *Crew
	ctx     context.Context
	done    chan CrewRun
	busy    map[string]int  // runs at work per agent (an adopted run keeps its agent, which may repeat)
	working map[string]bool // features their runs work on
	running int
	parked  int // runs that wait for a person (NoWait): their slot stays taken
	logMu   sync.Mutex
	log     io.Writer
}

func (cs *crewState) logf(format string, args ...any) {
	if cs.log != nil {
		fmt.Fprintf(cs.log, format+"\n", args...)
	}
}

// launch runs the flow for agent in its own goroutine: a new run on
// feature, or the run resume.
func (cs *crewState) launch(agent, feature, resume string) {
	cs.busy[agent]++
	cs.working[feature] = true
	cs.running++
	eng := *cs.c.Engine
	eng.Wait = !cs.c.NoWait
	eng.Log = prefixed(&cs.logMu, cs.c.Engine.Log, agent)
	eng.Live = prefixed(&cs.logMu, cs.c.Engine.Live, agent)
	go func() {
		var run *model.FlowRun
		var err error
		if resume != "" {
			run, err = eng.Resume(cs.ctx, resume)
		} else {
			vars := make(map[string]any, len(cs.c.Vars)+len(CrewVars))
			for k, v := range cs.c.Vars {
				vars[k] = v
			}
			vars[VarAgent], vars[VarCrew], vars[VarFeature], vars[VarClaimed] = agent, true, feature, true
			run, err = eng.Start(cs.ctx, cs.c.Flow, cs.c.Source, []string{feature}, vars)
		}
		flushLog(eng.Log)
		flushLog(eng.Live)
		end := CrewRun{Agent: agent, Feature: feature, Run: resume, Adopted: resume != ""}
		if run != nil {
			end.Run, end.Status, end.Step = run.ID, run.Status, run.Step
			if f := RunString(run, VarFeature); f != "" && end.Feature == "" {
				end.Feature = f
			}
		}
		if errors.Is(err, ErrWaiting) && run != nil {
			end.Decision, err = run.Decision, nil
		}
		if err != nil {
			end.Error = err.Error()
		}
		cs.done <- end
	}()
}

// adopt resumes the runs of a scheduler that died, and starts the runs of
// claims it made and never started. Without the list of runs it adopts
// nothing: a claim whose run it cannot see would get a second run.
func (cs *crewState) adopt(s *model.Session) error {
	orphans, claimed, err := cs.c.orphans(s)
	if err != nil {
		return err
	}
	for _, r := range orphans {
		// The resumed run acts as its own agent_name: the books say so too.
		agent := RunString(&r, VarAgent)
		if agent == "" {
			agent = cs.c.freeAgent(cs.busy)
		}
		cs.logf("↺ crew: adopting flow run %s (%s, %s) of a scheduler that stopped", r.ID, RunString(&r, VarFeature), agent)
		cs.launch(agent, RunString(&r, VarFeature), r.ID)
	}
	// A scheduler killed between a claim and its run's start left a claim
	// of one of its agents that no run works on.
	for _, cl := range model.ActiveClaims(s) {
		if !claimed[cl.Feature] && cs.busy[cl.Agent] == 0 && strings.HasPrefix(cl.Agent, cs.c.prefix()+"-") {
			cs.logf("↺ crew: %s's claim of %s has no run; starting it", cl.Agent, cl.Feature)
			cs.launch(cl.Agent, cl.Feature, "")
		}
	}
	return nil
}

// Run schedules until the session completes, nothing is left to claim and
// nothing runs, or ctx ends (the runs keep their state and are adopted by
// the next scheduler).
func (c *Crew) Run(ctx context.Context) (*CrewReport, error) {
	if c.Do == nil {
		return nil, errors.New("flows: the crew has no action path (Crew.Do)")
	}
	st := c.Engine.Store
	s, err := st.Active()
	if err != nil {
		return nil, err
	}
	if err := crewRefusal(s); err != nil {
		return nil, err
	}
	// One scheduler per session: a second would name its agents as the
	// first does (worker-1 …) and could start a run for a claim the first
	// made a moment before starting its own run on it.
	lock, err := tryLock(st, "crew-"+s.ID)
	if err != nil {
		return nil, fmt.Errorf("crew lock of session %s: %w", s.ID, err)
	}
	if lock == nil {
		return nil, schedulerRunning(s.ID)
	}
	defer lock.release()
	rep := &CrewReport{Slots: max(1, min(c.Parallel, s.MaxParallel()))}
	cs := &crewState{c: c, ctx: ctx, done: make(chan CrewRun), busy: map[string]int{}, working: map[string]bool{}}
	cs.log = prefixed(&cs.logMu, c.Engine.Log, "crew")
	if err := cs.adopt(s); err != nil {
		return nil, err
	}
	var failed error // a storage error stops the claims; the runs finish
	for {
		for ctx.Err() == nil && failed == nil && cs.running+cs.parked < rep.Slots {
			agent := c.freeAgent(cs.busy)
			feature, reason, err := c.claim(agent, cs.working)
			if err != nil {
				failed = err
				break
			}
			if feature == "" {
				rep.Reason = reason
				break
			}
			cs.logf("▶ crew: %s claims %s", agent, feature)
			cs.launch(agent, feature, "")
		}
		if cs.running == 0 {
			break
		}
		end := <-cs.done
		cs.running--
		rep.Runs = append(rep.Runs, end)
		if end.Decision != "" {
			// Waiting for a person: the slot, its agent and its feature
			// stay taken until the next scheduler adopts the run.
			cs.parked++
			cs.logf("‖ crew: %s's run %s on %s waits for decision %s", end.Agent, end.Run, end.Feature, end.Decision)
			continue
		}
		if cs.busy[end.Agent]--; cs.busy[end.Agent] <= 0 {
			delete(cs.busy, end.Agent)
		}
		delete(cs.working, end.Feature)
		cs.logf("■ crew: %s's run %s on %s ended %s at %s %s", end.Agent, end.Run, end.Feature, end.Status, end.Step, end.Error)
	}
	if cs.parked > 0 {
		rep.Reason = fmt.Sprintf("%d run(s) wait for a person (flowdeck decisions); run it again to go on", cs.parked)
	}
	if s, err := st.Active(); err == nil && s != nil {
		rep.Session = s.Status
		if s.Status == model.StatusCompleted {
			rep.Reason = "the session is completed"
		}
	}
	if failed != nil {
		return rep, failed
	}
	return rep, ctx.Err()
}

// crewRefusal refuses to schedule without an approved plan.
func crewRefusal(s *model.Session) error {
	switch {
	case s == nil || s.Plan == nil:
		return &model.Error{Code: model.CodeNoPlan, Message: "there is no active session with a plan to run",
			Recovery: model.Recovery{Hint: "Plan first.", NextCommand: "flowdeck flows run plan GOAL"}}
	case s.Approval != model.ApprovalApproved:
		return &model.Error{Code: model.CodePlanNotApproved, Message: "the plan of session " + s.ID + " is not approved",
			Recovery: model.Recovery{Hint: "Review the plan, then approve it.", NextCommand: "flowdeck flow plan approve"}}
	}
	return nil
}

// schedulerRunning refuses a second scheduler on a session.
func schedulerRunning(session string) error {
	return &model.Error{Code: model.CodeSchedulerRunning,
		Message: "another scheduler is already running the agents of session " + session,
		Recovery: model.Recovery{Hint: "Watch its agents in the cockpit's Agents pane (8), or stop that scheduler (Ctrl-C in its terminal) " +
			"and start this one: it adopts the runs the other left.", NextCommand: "flowdeck flow status"}}
}

// claim claims the next feature for agent: the feature, or "" and why none.
//
// A feature one of the scheduler's runs works on is never claimed again
// here, even when it is pending for a moment (a run that reassigns its
// feature resets and claims it again).
func (c *Crew) claim(agent string, working map[string]bool) (feature, reason string, err error) {
	st := c.Engine.Store
	s, err := st.Active()
	if err != nil {
		return "", "", err
	}
	switch {
	case s == nil || s.Plan == nil:
		return "", "there is no active session", nil
	case s.Status == model.StatusCompleted:
		return "", "the session is completed", nil
	case len(model.ActiveClaims(s)) >= s.MaxParallel():
		return "", "max_parallel features are active", nil
	}
	next := ""
	for _, id := range model.ClaimOrder(s) { // critical-path order
		if !working[id] {
			next = id
			break
		}
	}
	if next == "" {
		why := model.BlockReasons(s.Plan)
		if why == "" {
			why = "every feature is active or completed"
		}
		return "", "nothing is claimable: " + why, nil
	}
	events, err := c.Do(model.RunStart{Feature: next, Agent: agent}, agent)
	if me, refused := model.AsError(err); refused {
		return "", me.Message, nil
	}
	if err != nil {
		return "", "", err
	}
	for _, ev := range events {
		if ev.Type == model.EventFeatureStarted {
			return ev.Feature, "", nil
		}
	}
	return "", "the claim started no feature", nil
}

func (c *Crew) prefix() string {
	if c.Prefix == "" {
		return "worker"
	}
	return c.Prefix
}

// freeAgent is the first of Prefix-1, Prefix-2, … not busy.
func (c *Crew) freeAgent(busy map[string]int) string {
	for i := 1; ; i++ {
		if name := fmt.Sprintf("%s-%d", c.prefix(), i); busy[name] == 0 {
			return name
		}
	}
}

// orphans are session s's unfinished runs of this flow that a scheduler
// started and whose process is gone (their lock is free); claimed holds the
// features of every unfinished run of the flow in that session.
func (c *Crew) orphans(s *model.Session) ([]model.FlowRun, map[string]bool, error) {
	claimed := map[string]bool{}
	runs, err := c.Engine.Store.FlowRuns()
	if err != nil {
		return nil, nil, fmt.Errorf("crew: list the flow runs to adopt: %w", err)
	}
	var out []model.FlowRun
	for _, r := range runs {
		if r.Flow != c.Flow.Name || model.FlowEnded(r.Status) {
			continue
		}
		// A run of another (archived) session works on that session's
		// feature: resumed, it would claim this one's of the same id.
		if r.Session != "" && r.Session != s.ID {
			continue
		}
		claimed[RunString(&r, VarFeature)] = true
		if r.Vars[VarCrew] != true {
			continue
		}
		if !Executing(c.Engine.Store, r.ID) {
			out = append(out, r)
		}
	}
	return out, claimed, nil
}

// prefixed writes whole lines to w, each after "[name] ", one writer at a
// time; nil when w is nil.
func prefixed(mu *sync.Mutex, w io.Writer, name string) io.Writer {
	if w == nil {
		return nil
	}
	return &linePrefix{mu: mu, w: w, prefix: []byte("[" + name + "] ")}
}

type linePrefix struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix []byte
	buf    []byte
}

// maxPrefixedLine bounds a line held back for its end: an agent's output is
// foreign, and a gigabyte without a newline must not sit in memory.
const maxPrefixedLine = 64 << 10

func (l *linePrefix) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 { // in pieces, so that a huge write is never copied whole
		piece := p[:min(len(p), maxPrefixedLine)]
		p = p[len(piece):]
		if err := l.add(piece); err != nil {
			return n, err
		}
	}
	return n, nil
}

// add takes one piece: whole lines go out, the rest waits for its end up
// to maxPrefixedLine.
func (l *linePrefix) add(piece []byte) error {
	l.buf = append(l.buf, piece...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		err := l.emit(l.buf[:i+1])
		l.buf = l.buf[i+1:]
		if err != nil {
			return err
		}
	}
	if len(l.buf) >= maxPrefixedLine {
		err := l.emit(l.buf) // cut, as the output pane cuts a long line
		l.buf = l.buf[:0]
		return err
	}
	return nil
}

// Flush writes a last line that never got its newline.
func (l *linePrefix) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return nil
	}
	err := l.emit(l.buf)
	l.buf = nil
	return err
}

// emit writes one line after the prefix, ended by a newline.
func (l *linePrefix) emit(b []byte) error {
	line := append(append([]byte(nil), l.prefix...), b...)
	if line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	_, err := l.w.Write(line)
	return err
}

// flushLog writes what w holds back (a prefixed writer's last line).
func flushLog(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		f.Flush()
	}
}
