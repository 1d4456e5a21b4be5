package model

import (
	"fmt"
	"time"
)

// Flow runs: the state of each literate-flow run, kept as an event log and
// the run it folds into. Package flows decides which events happen; db
// stores them, applying them with ApplyFlowEvent in the transaction that
// appends them.

// FlowStatus is the stored status of a flow run.
type FlowStatus string

// FlowEventType names what a flow event records.
type FlowEventType string

// Flow run statuses.
const (
	FlowRunning     FlowStatus = "running"
	FlowWaiting     FlowStatus = "waiting"     // for a pending decision
	FlowInterrupted FlowStatus = "interrupted" // its process stopped mid-run; resume or decide
	FlowCompleted   FlowStatus = "completed"
	FlowRefused     FlowStatus = "refused" // ended at a stop: refused step (flowdeck refused what it asked)
	FlowFailed      FlowStatus = "failed"
	FlowCancelled   FlowStatus = "cancelled"
)

// FlowEnded reports whether a status is final.
func FlowEnded(status FlowStatus) bool {
	return status == FlowCompleted || status == FlowRefused || status == FlowFailed || status == FlowCancelled
}

// FlowState is how a run reads to a person: its stored status, except that
// a requested pause reads pausing (still running) or paused (stopped), and a
// run that says running while no process executes it lost its process and
// reads interrupted.
type FlowState string

// Flow run states: the stored statuses, and pausing and paused.
const (
	FlowStateRunning               = FlowState(FlowRunning)
	FlowStatePausing     FlowState = "pausing"
	FlowStateWaiting               = FlowState(FlowWaiting)
	FlowStateInterrupted           = FlowState(FlowInterrupted)
	FlowStatePaused      FlowState = "paused"
	FlowStateCompleted             = FlowState(FlowCompleted)
	FlowStateRefused               = FlowState(FlowRefused)
	FlowStateFailed                = FlowState(FlowFailed)
	FlowStateCancelled             = FlowState(FlowCancelled)
)

// FlowStateOf returns how run r reads; executing says whether a process
// executes it now.
func FlowStateOf(r *FlowRun, executing bool) FlowState {
	switch {
	case r.Status == FlowInterrupted && r.PauseRequested:
		return FlowStatePaused
	case r.Status == FlowRunning && !executing:
		return FlowStateInterrupted
	case r.Status == FlowRunning && r.PauseRequested:
		return FlowStatePausing
	}
	return FlowState(r.Status)
}

// Ended reports whether the state is final.
func (s FlowState) Ended() bool { return FlowEnded(FlowStatus(s)) }

// Flow event types.
const (
	FlowEvStarted          FlowEventType = "flow_started"
	FlowEvActionStarted    FlowEventType = "action_started"
	FlowEvActionFinished   FlowEventType = "action_finished"
	FlowEvPrompt           FlowEventType = "prompt"
	FlowEvVarsSet          FlowEventType = "vars_set"
	FlowEvDecisionCreated  FlowEventType = "decision_created"
	FlowEvDecisionResolved FlowEventType = "decision_resolved"
	FlowEvStepFinished     FlowEventType = "step_finished"
	FlowEvInterrupted      FlowEventType = "interrupted"
	FlowEvResumed          FlowEventType = "resumed"
	FlowEvFailed           FlowEventType = "failed"
	FlowEvCancelled        FlowEventType = "cancelled"
	FlowEvPauseRequested   FlowEventType = "pause_requested"
)

// maxFlowHistory bounds the step history kept in the materialized run; the
// event log keeps everything.
const maxFlowHistory = 200

// FlowRun is the materialized state of one flow run.
type FlowRun struct {
	ID     string `json:"id"`
	Flow   string `json:"flow"`
	Source string `json:"source"` // the file's path, or builtin:NAME
	Hash   string `json:"hash"`   // sha256 of the flow file when the run started
	// Text is the flow file as it was when the run started, so a resumed
	// run executes what it started with.
	Text      string         `json:"text,omitempty"`
	Args      []string       `json:"args,omitempty"`
	Status    FlowStatus     `json:"status"`
	Step      string         `json:"step"`
	StepIndex int            `json:"step_index"`
	Action    int            `json:"action"` // the next action of the current step
	InFlight  *FlowAction    `json:"in_flight,omitempty"`
	Outputs   []string       `json:"outputs,omitempty"` // of the current step's finished exec blocks
	Vars      map[string]any `json:"vars"`
	History   []FlowStep     `json:"history"`
	StepsRun  int            `json:"steps_run"`
	MaxSteps  int            `json:"max_steps"`
	Decision  string         `json:"decision,omitempty"` // the pending decision
	// PauseRequested stops the executing process after the current step;
	// the run is then interrupted and resumes without asking.
	PauseRequested bool       `json:"pause_requested,omitempty"`
	Error          string     `json:"error,omitempty"`
	Actor          string     `json:"actor"`
	Session        string     `json:"session,omitempty"`
	Created        time.Time  `json:"created"`
	Updated        time.Time  `json:"updated"`
	Ended          *time.Time `json:"ended,omitempty"`
	Seq            uint64     `json:"seq"`
}

// FlowAction is an exec block or agent call that started; while it is set
// and no process executes the run, the run was interrupted mid-action.
type FlowAction struct {
	StepIndex  int       `json:"step_index"`
	Step       string    `json:"step"`
	Action     int       `json:"action"`
	Kind       string    `json:"kind"` // exec or agent
	Label      string    `json:"label"`
	Idempotent bool      `json:"idempotent,omitempty"`
	Started    time.Time `json:"started"`
}

// FlowStep is one executed step in a run's history.
type FlowStep struct {
	Step      string     `json:"step"`
	StepIndex int        `json:"step_index"`
	Started   time.Time  `json:"started"`
	Ended     *time.Time `json:"ended,omitempty"`
	Outcome   string     `json:"outcome,omitempty"` // done, skipped, failed, cancelled
	Next      string     `json:"next,omitempty"`
	Runs      []string   `json:"runs,omitempty"`  // capture run ids
	Notes     []string   `json:"notes,omitempty"` // what the engine tolerated
}

// FlowEvent is one entry of a flow run's log. Only the fields its Type needs
// are set.
type FlowEvent struct {
	Seq        uint64         `json:"seq"`
	Run        string         `json:"run"`
	Type       FlowEventType  `json:"type"`
	At         time.Time      `json:"at"`
	Actor      string         `json:"actor"`
	Step       string         `json:"step,omitempty"`
	StepIndex  int            `json:"step_index"`
	Action     int            `json:"action,omitempty"`
	Kind       string         `json:"kind,omitempty"`
	Label      string         `json:"label,omitempty"`
	Idempotent bool           `json:"idempotent,omitempty"`
	RunID      string         `json:"run_id,omitempty"` // a capture run
	Exit       *int           `json:"exit,omitempty"`
	Summary    string         `json:"summary,omitempty"`
	Output     *string        `json:"output,omitempty"` // what an exec block puts into the prompt
	Vars       map[string]any `json:"vars,omitempty"`
	Prompt     string         `json:"prompt,omitempty"`
	Decision   string         `json:"decision,omitempty"`
	Option     string         `json:"option,omitempty"`
	Note       string         `json:"note,omitempty"`
	NewAction  int            `json:"new_action,omitempty"` // decision_resolved: where the step continues
	Next       *int           `json:"next,omitempty"`       // step_finished: the next step, -1 = end
	NextStep   string         `json:"next_step,omitempty"`
	Outcome    string         `json:"outcome,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// ErrFlowRunEnded refuses events on a run that completed, failed or was
// cancelled (by another process, say).
type ErrFlowRunEnded struct {
	ID     string
	Status FlowStatus
}

// CodeFlowRunEnded is the refusal code that an ErrFlowRunEnded becomes for
// the person or agent who acted on the run.
const CodeFlowRunEnded = "flow_run_ended"

func (e ErrFlowRunEnded) Error() string {
	return fmt.Sprintf("flow run %s is %s", e.ID, e.Status)
}

// ApplyFlowEvent applies one event to a run. It is pure: replaying a run's
// log through it rebuilds the run (except Text and the fields set at
// creation, which flow_started carries in the stored run).
func ApplyFlowEvent(r *FlowRun, e FlowEvent) error {
	if FlowEnded(r.Status) {
		return ErrFlowRunEnded{r.ID, r.Status}
	}
	if r.Vars == nil {
		r.Vars = map[string]any{}
	}
	r.Seq, r.Updated = e.Seq, e.At
	switch e.Type {
	case FlowEvStarted:
		r.Status = FlowRunning
		r.Step, r.StepIndex, r.StepsRun = e.Step, e.StepIndex, 1
		mergeVars(r.Vars, e.Vars)
		r.History = append(r.History, FlowStep{Step: e.Step, StepIndex: e.StepIndex, Started: e.At})
	case FlowEvActionStarted:
		r.InFlight = &FlowAction{StepIndex: e.StepIndex, Step: e.Step, Action: e.Action, Kind: e.Kind,
			Label: e.Label, Idempotent: e.Idempotent, Started: e.At}
	case FlowEvActionFinished:
		r.InFlight = nil
		r.Action = e.Action + 1
		mergeVars(r.Vars, e.Vars)
		if e.Output != nil {
			r.Outputs = append(r.Outputs, *e.Output)
		}
		if h := r.lastStep(); h != nil && e.RunID != "" {
			h.Runs = append(h.Runs, e.RunID)
		}
		if h := r.lastStep(); h != nil && e.Note != "" {
			h.Notes = append(h.Notes, e.Note)
		}
	case FlowEvPrompt:
	case FlowEvVarsSet:
		mergeVars(r.Vars, e.Vars)
		if e.NewAction > 0 {
			r.Action = e.NewAction
		}
	case FlowEvDecisionCreated:
		r.Status, r.Decision = FlowWaiting, e.Decision
	case FlowEvDecisionResolved:
		r.decisionResolved(e)
	case FlowEvStepFinished:
		r.stepFinished(e)
	case FlowEvInterrupted:
		r.Status = FlowInterrupted
		if e.Decision != "" {
			r.Decision = e.Decision
		}
	case FlowEvPauseRequested:
		r.PauseRequested = true
	case FlowEvResumed:
		r.Status, r.PauseRequested = FlowRunning, false
		if e.Kind == "retry" {
			r.InFlight, r.Action = nil, e.NewAction
		}
	case FlowEvFailed:
		r.Status, r.Error, r.Ended = FlowFailed, e.Error, &e.At
		if h := r.lastStep(); h != nil && h.Ended == nil {
			h.Ended, h.Outcome = &e.At, "failed"
		}
	case FlowEvCancelled:
		r.Status, r.Ended, r.Decision = FlowCancelled, &e.At, ""
		if h := r.lastStep(); h != nil && h.Ended == nil {
			h.Ended, h.Outcome = &e.At, "cancelled"
		}
	default:
		return fmt.Errorf("unknown flow event type %q", e.Type)
	}
	return nil
}

// lastStep is the step in progress (or the last one), nil before any.
func (r *FlowRun) lastStep() *FlowStep {
	if len(r.History) == 0 {
		return nil
	}
	return &r.History[len(r.History)-1]
}

// decisionResolved continues the run after its decision, or cancels it
// when an interrupted action was answered with cancel.
func (r *FlowRun) decisionResolved(e FlowEvent) {
	r.Decision = ""
	switch e.Kind {
	case string(DecisionInterrupted):
		r.InFlight = nil
		if e.Option == "cancel" {
			r.Status = FlowCancelled
			r.Ended = &e.At
			if h := r.lastStep(); h != nil && h.Ended == nil {
				h.Ended, h.Outcome = &e.At, "cancelled"
			}
			return
		}
	default:
		mergeVars(r.Vars, e.Vars)
	}
	r.Action = e.NewAction
	r.Status = FlowRunning
}

// stepFinished closes the current step and moves to the next, or ends the
// run when there is none.
func (r *FlowRun) stepFinished(e FlowEvent) {
	h := r.lastStep()
	if h != nil {
		h.Ended, h.Outcome, h.Next = &e.At, e.Outcome, e.NextStep
		if e.Note != "" {
			h.Notes = append(h.Notes, e.Note)
		}
	}
	r.Action, r.Outputs, r.InFlight = 0, nil, nil
	if e.Next == nil || *e.Next < 0 {
		r.Status = FlowCompleted
		if e.Outcome == "refused" {
			r.Status, r.Error = FlowRefused, e.Error
		}
		r.Ended = &e.At
		return
	}
	r.Step, r.StepIndex = e.NextStep, *e.Next
	r.StepsRun++
	r.History = append(r.History, FlowStep{Step: e.NextStep, StepIndex: *e.Next, Started: e.At})
	if len(r.History) >= 2*maxFlowHistory {
		r.History = append([]FlowStep(nil), r.History[len(r.History)-maxFlowHistory:]...)
	}
}

func mergeVars(dst, src map[string]any) {
	for k, v := range src {
		dst[k] = v
	}
}
