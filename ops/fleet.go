package ops

import (
	"slices"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
)

// FleetAPI is the version of the fleet's view of a project (FleetGlance and
// the person's calls the fleet makes). A fleet that meets a project whose
// flowdeck answers another version shows it as incompatible instead of
// guessing at its fields. Raise it on any change a fleet of the previous
// version would misread.
const FleetAPI = 1

// FleetGlanceURI is the MCP resource a fleet subscribes to: the server
// sends notifications/resources/updated for it whenever the project
// changes (any process's write), and the fleet then calls fleet_glance.
// Reading it returns the same JSON as the tool.
const FleetGlanceURI = "flowdeck://fleet/glance"

// FleetGlance is what one project's flowdeck tells the fleet (the MCP tool
// fleet_glance): enough for a row and for the queue of what waits for the
// person. Every string in it is the remote's and untrusted: the fleet
// sanitises and bounds it again on arrival.
type FleetGlance struct {
	OK  bool `json:"ok"`
	API int  `json:"api"` // FleetAPI of the answering flowdeck
	// Root is the project's directory on its machine.
	Root string `json:"root"`
	// Seq is the active session's last event: the person's answers carry
	// it as expect_seq, so an answer made stale elsewhere is refused.
	Seq     uint64 `json:"seq"`
	Session string `json:"session,omitempty"`
	Goal    string `json:"goal,omitempty"`
	Status  string `json:"status"` // the session's status, or "no active session"
	Done    int    `json:"done"`   // features completed
	Total   int    `json:"total"`  // features the plan requires
	// Active are the features being worked on, with their agents.
	Active []FleetActive `json:"active,omitempty"`
	// Waits are what waits for the person, oldest first: the cockpit's
	// own list (one entry per thing, a flow's question counted once).
	Waits []FleetWait `json:"waits,omitempty"`
	// LastActivity is when the project last changed (its latest event,
	// run or decision).
	LastActivity time.Time `json:"last_activity,omitzero"`
	NextCommand  string    `json:"next_command,omitempty"`
}

func (*FleetGlance) Refusal() *model.Error { return nil }

// FleetGlanceFailure is fleet_glance's answer when the project cannot be
// read (a busy or broken database, a path out of the project): api is said
// all the same, so that a fleet tells a project it cannot read now from an
// incompatible one.
type FleetGlanceFailure struct {
	OK    bool         `json:"ok"`
	API   int          `json:"api"`
	Error FailureError `json:"error"`
}

// FleetGlanceFailed is the failure of a glance that err stopped.
func FleetGlanceFailed(err error) *FleetGlanceFailure {
	return &FleetGlanceFailure{API: FleetAPI, Error: Failed(err).Error}
}

// Refusal makes the answer a tool error, like every failure.
func (f *FleetGlanceFailure) Refusal() *model.Error {
	return &model.Error{Code: f.Error.Code, Message: f.Error.Message}
}

// FleetActive is one feature in progress.
type FleetActive struct {
	Feature string `json:"feature"`
	Title   string `json:"title,omitempty"`
	Agent   string `json:"agent,omitempty"`
	State   string `json:"state"`
}

// Fleet wait kinds: what a FleetWait asks of the person.
const (
	FleetWaitPlan        = "plan"        // approve the plan
	FleetWaitReview      = "review"      // review a feature (Feature)
	FleetWaitFinal       = "final"       // the session's final review
	FleetWaitBlocked     = "blocked"     // a blocked feature or session
	FleetWaitInterrupted = "interrupted" // a feature whose agent crashed or gave up
	FleetWaitDecision    = "decision"    // a flow's pending decision (Decision)
)

// FleetWait is one thing that waits for the person.
type FleetWait struct {
	Kind string `json:"kind"`
	// Key names this occurrence (a new validation after needs_fix is a new
	// review request): the fleet rings once per new key.
	Key      string    `json:"key"`
	Label    string    `json:"label"` // how the cockpit names it: "review parser", "decision run-3 pick"
	Feature  string    `json:"feature,omitempty"`
	Decision string    `json:"decision,omitempty"` // the decision's id (decision_resolve)
	Reason   string    `json:"reason,omitempty"`   // blocked or interrupted: why; a decision: its prompt
	Since    time.Time `json:"since,omitzero"`     // when it started waiting
	// Options are a decision's choices (decision_resolve's option).
	Options []FleetOption `json:"options,omitempty"`
}

// FleetOption is one choice of a decision.
type FleetOption struct {
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
}

// Bounds of what a glance carries of the store's text (the fleet bounds
// it again on arrival; these keep one answer small whatever a flow asked).
const (
	fleetTextMax    = 500  // runes of the goal, a title, a wait's label or reason
	fleetPromptMax  = 2000 // runes of a decision's prompt
	fleetOptionsMax = 32   // options of one decision
	fleetLabelMax   = 200  // runes of an option's label
	fleetListMax    = 200  // active features, waits (the oldest kept)
)

// BuildFleetGlance is the fleet's view of the project at root whose store
// is st (nil: a project without a database, no session yet), read in one
// transaction. Its waits are the cockpit's (Waits), oldest first.
func BuildFleetGlance(st *db.Store, root string) (*FleetGlance, error) {
	g := &db.Glance{}
	if st != nil {
		var err error
		if g, err = st.FleetGlance(); err != nil {
			return nil, err
		}
	}
	return fleetGlanceOf(g, root), nil
}

// fleetGlanceOf is the glance of what the store read.
func fleetGlanceOf(g *db.Glance, root string) *FleetGlance {
	s := g.Active
	out := &FleetGlance{OK: true, API: FleetAPI, Root: root, Status: "no active session", NextCommand: model.NextCommand(s)}
	out.LastActivity = lastActivity(g)
	if s == nil {
		return out
	}
	out.Seq, out.Session, out.Goal, out.Status = s.Seq, s.ID, firstRunes(s.Goal, fleetTextMax), model.StatusText(s)
	if s.Plan != nil {
		out.Done, out.Total = s.Plan.CompletedCount(), s.Plan.Required()
		for _, c := range model.ActiveClaims(s) {
			if f := s.Plan.Feature(c.Feature); f != nil && len(out.Active) < fleetListMax {
				out.Active = append(out.Active, FleetActive{Feature: f.ID, Title: firstRunes(f.Title, fleetTextMax), Agent: c.Agent,
					State: string(model.StateOf(s, f))})
			}
		}
	}
	ws := Waits(s, g.Decisions, g.FlowRuns)
	// Oldest first; the cockpit's order (plan order, then decisions)
	// breaks ties.
	slices.SortStableFunc(ws, func(a, b Wait) int { return a.Since.Compare(b.Since) })
	for _, w := range ws[:min(len(ws), fleetListMax)] {
		out.Waits = append(out.Waits, fleetWait(w, g.FlowRuns))
	}
	return out
}

// fleetWait is w as the fleet receives it: a decision with its prompt,
// options and the feature its flow run works on.
func fleetWait(w Wait, runs []model.FlowRun) FleetWait {
	fw := FleetWait{Kind: w.Kind, Key: w.Key, Label: firstRunes(w.Label, fleetTextMax), Feature: firstRunes(w.Feature, fleetTextMax),
		Reason: firstRunes(w.Reason, fleetTextMax), Since: w.Since}
	d := w.Decision
	if d == nil {
		return fw
	}
	fw.Decision, fw.Reason = d.ID, firstRunes(d.Prompt, fleetPromptMax)
	for _, r := range runs {
		if r.ID == d.FlowRun {
			fw.Feature = firstRunes(flows.RunString(&r, flows.VarFeature), fleetTextMax)
		}
	}
	for i, o := range d.Options {
		if i == fleetOptionsMax {
			break
		}
		fw.Options = append(fw.Options, FleetOption{ID: o.ID, Label: firstRunes(o.Description, fleetLabelMax)})
	}
	return fw
}

// lastActivity is when the project last changed: its session's latest
// event, a flow run's latest step, a pending decision, the newest command
// run's start or end.
func lastActivity(g *db.Glance) time.Time {
	var t time.Time
	later := func(u time.Time) {
		if u.After(t) {
			t = u
		}
	}
	if s := g.Active; s != nil {
		later(s.Timestamps.Updated) // its latest event's time (model.Apply)
	}
	for _, r := range g.FlowRuns {
		later(r.Updated)
	}
	for _, d := range g.Decisions {
		later(d.Created)
	}
	if r := g.LastRun; r != nil {
		later(r.Start.Add(r.Duration))
	}
	return t
}

// firstRunes is s cut to at most n runes.
func firstRunes(s string, n int) string {
	i := 0
	for at := range s {
		if i == n {
			return s[:at]
		}
		i++
	}
	return s
}
