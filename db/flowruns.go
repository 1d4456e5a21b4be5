package db

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Flow runs: the state of each literate-flow run, event-logged like
// sessions. `flowruns` holds the materialized run (JSON) by id; `flowevents`
// holds one sub-bucket per run with its events by big-endian sequence.
// Package flows decides what happens; this file stores it, applying events
// with ApplyFlowEvent in the same transaction that appends them.
var (
	bucketFlowRuns   = []byte("flowruns")
	bucketFlowEvents = []byte("flowevents")
)

func init() { extraBuckets = append(extraBuckets, bucketFlowRuns, bucketFlowEvents) }

// Flow run statuses.
const (
	FlowRunning     = "running"
	FlowWaiting     = "waiting"     // for a pending decision
	FlowInterrupted = "interrupted" // its process stopped mid-run; resume or decide
	FlowCompleted   = "completed"
	FlowRefused     = "refused" // ended at a stop: refused step (flowdeck refused what it asked)
	FlowFailed      = "failed"
	FlowCancelled   = "cancelled"
)

// FlowEnded reports whether a status is final.
func FlowEnded(status string) bool {
	return status == FlowCompleted || status == FlowRefused || status == FlowFailed || status == FlowCancelled
}

// Flow event types.
const (
	FlowEvStarted          = "flow_started"
	FlowEvActionStarted    = "action_started"
	FlowEvActionFinished   = "action_finished"
	FlowEvPrompt           = "prompt"
	FlowEvVarsSet          = "vars_set"
	FlowEvDecisionCreated  = "decision_created"
	FlowEvDecisionResolved = "decision_resolved"
	FlowEvStepFinished     = "step_finished"
	FlowEvInterrupted      = "interrupted"
	FlowEvResumed          = "resumed"
	FlowEvFailed           = "failed"
	FlowEvCancelled        = "cancelled"
	FlowEvPauseRequested   = "pause_requested"
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
	Status    string         `json:"status"`
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
	Type       string         `json:"type"`
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
type ErrFlowRunEnded struct{ ID, Status string }

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
	last := func() *FlowStep {
		if len(r.History) == 0 {
			return nil
		}
		return &r.History[len(r.History)-1]
	}
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
		if h := last(); h != nil && e.RunID != "" {
			h.Runs = append(h.Runs, e.RunID)
		}
		if h := last(); h != nil && e.Note != "" {
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
		r.Decision = ""
		switch e.Kind {
		case DecisionInterrupted:
			r.InFlight = nil
			if e.Option == "cancel" {
				r.Status = FlowCancelled
				r.Ended = &e.At
				if h := last(); h != nil && h.Ended == nil {
					h.Ended, h.Outcome = &e.At, "cancelled"
				}
				return nil
			}
		default:
			mergeVars(r.Vars, e.Vars)
		}
		r.Action = e.NewAction
		r.Status = FlowRunning
	case FlowEvStepFinished:
		h := last()
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
			return nil
		}
		r.Step, r.StepIndex = e.NextStep, *e.Next
		r.StepsRun++
		r.History = append(r.History, FlowStep{Step: e.NextStep, StepIndex: *e.Next, Started: e.At})
		if len(r.History) >= 2*maxFlowHistory {
			r.History = append([]FlowStep(nil), r.History[len(r.History)-maxFlowHistory:]...)
		}
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
		if h := last(); h != nil && h.Ended == nil {
			h.Ended, h.Outcome = &e.At, "failed"
		}
	case FlowEvCancelled:
		r.Status, r.Ended, r.Decision = FlowCancelled, &e.At, ""
		if h := last(); h != nil && h.Ended == nil {
			h.Ended, h.Outcome = &e.At, "cancelled"
		}
	default:
		return fmt.Errorf("unknown flow event type %q", e.Type)
	}
	return nil
}

func mergeVars(dst, src map[string]any) {
	for k, v := range src {
		dst[k] = v
	}
}

// ReserveFlowRunID returns a new run id, name-N, unique in this project. Ids
// are handed out before the run is stored so that the executing process can
// lock the run first.
func (s *Store) ReserveFlowRunID(name string) (string, error) {
	var id string
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketFlowRuns)
		if err != nil {
			return err
		}
		n, err := b.NextSequence()
		if err != nil {
			return err
		}
		id = slugify(name, 30)
		if id == "" {
			id = "flow"
		}
		id += "-" + strconv.FormatUint(n, 10)
		return nil
	})
	return id, err
}

// CreateFlowRun stores a new run (r.ID from ReserveFlowRunID) and its
// flow_started event; first and vars are its first step and variables.
func (s *Store) CreateFlowRun(r *FlowRun, first string, vars map[string]any, actor string, now time.Time) (*FlowRun, error) {
	var out *FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketFlowRuns)
		if err != nil {
			return err
		}
		if b.Get([]byte(r.ID)) != nil {
			return fmt.Errorf("flow run %s exists", r.ID)
		}
		run := *r
		run.Created, run.Actor, run.Vars = now, actor, map[string]any{}
		if meta := tx.Bucket(bucketMeta); meta != nil {
			run.Session = string(meta.Get(keyActive))
		}
		if err := putFlowEvents(tx, &run, actor, now, FlowEvent{Type: FlowEvStarted, Step: first, Vars: vars}); err != nil {
			return err
		}
		out = &run
		return nil
	})
	return out, err
}

// AppendFlowEvents applies and stores events on a run in one transaction.
func (s *Store) AppendFlowEvents(id, actor string, now time.Time, evs ...FlowEvent) (*FlowRun, error) {
	var out *FlowRun
	err := s.update(func(tx *bolt.Tx) error {
		r, err := loadFlowRun(tx, id)
		if err != nil {
			return err
		}
		if err := putFlowEvents(tx, r, actor, now, evs...); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

func loadFlowRun(tx *bolt.Tx, id string) (*FlowRun, error) {
	b := tx.Bucket(bucketFlowRuns)
	var raw []byte
	if b != nil {
		raw = b.Get([]byte(id))
	}
	if raw == nil {
		return nil, ErrNoFlowRun{id}
	}
	var r FlowRun
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("flow run %s: decode: %w", id, err)
	}
	return &r, nil
}

// ErrNoFlowRun says a flow run id is unknown.
type ErrNoFlowRun struct{ ID string }

func (e ErrNoFlowRun) Error() string { return "no flow run " + e.ID }

// putFlowEvents numbers, applies and appends events, then stores the run.
func putFlowEvents(tx *bolt.Tx, r *FlowRun, actor string, now time.Time, evs ...FlowEvent) error {
	logs, err := tx.CreateBucketIfNotExists(bucketFlowEvents)
	if err != nil {
		return err
	}
	log, err := logs.CreateBucketIfNotExists([]byte(r.ID))
	if err != nil {
		return err
	}
	for _, e := range evs {
		e.Seq, e.Run, e.At, e.Actor = r.Seq+1, r.ID, now, actor
		if err := ApplyFlowEvent(r, e); err != nil {
			return err
		}
		raw, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode flow event: %w", err)
		}
		if err := log.Put(u64(e.Seq), raw); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode flow run %s: %w", r.ID, err)
	}
	b, err := tx.CreateBucketIfNotExists(bucketFlowRuns)
	if err != nil {
		return err
	}
	return b.Put([]byte(r.ID), raw)
}

// FlowRun returns a stored run.
func (s *Store) FlowRun(id string) (*FlowRun, error) {
	var r *FlowRun
	err := s.view(func(tx *bolt.Tx) (err error) {
		r, err = loadFlowRun(tx, id)
		return err
	})
	return r, err
}

// FlowRuns lists every run, newest first, without the flow text.
func (s *Store) FlowRuns() ([]FlowRun, error) {
	var out []FlowRun
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = flowRunsTx(tx)
		return err
	})
	return out, err
}

func flowRunsTx(tx *bolt.Tx) ([]FlowRun, error) {
	var out []FlowRun
	b := tx.Bucket(bucketFlowRuns)
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		var r FlowRun
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("flow run %s: decode: %w", k, err)
		}
		r.Text = ""
		out = append(out, r)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, err
}

// FlowEvents returns a run's events with seq >= from (at most limit; 0 =
// all), oldest first.
func (s *Store) FlowEvents(id string, from uint64, limit int) ([]FlowEvent, error) {
	var out []FlowEvent
	err := s.view(func(tx *bolt.Tx) error {
		logs := tx.Bucket(bucketFlowEvents)
		if logs == nil {
			return nil
		}
		log := logs.Bucket([]byte(id))
		if log == nil {
			return nil
		}
		c := log.Cursor()
		for k, v := c.Seek(u64(from)); k != nil; k, v = c.Next() {
			var e FlowEvent
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("flow run %s event %d: decode: %w", id, getU64(k), err)
			}
			out = append(out, e)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		return nil
	})
	return out, err
}
