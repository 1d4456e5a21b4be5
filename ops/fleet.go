package ops

import (
	"time"

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
