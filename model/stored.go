package model

import (
	"fmt"
	"time"
)

// What the store reads back about a project, as plain data: the front-ends
// and ops show it without reaching the store's package.

// SessionInfo summarizes a stored session for lists.
type SessionInfo struct {
	ID        string        `json:"id"`
	Goal      string        `json:"goal"`
	Status    SessionStatus `json:"status"`
	Approval  Approval      `json:"approval"`
	Active    bool          `json:"active"`
	Archived  bool          `json:"archived"`
	Completed int           `json:"completed"`
	Features  int           `json:"features"`
	Events    uint64        `json:"events"`
	Created   time.Time     `json:"created"`
	Updated   time.Time     `json:"updated"`
}

// AgentEvent is the last thing an agent's harness reported about it, such
// as "idle" (opencode's session.idle).
type AgentEvent struct {
	Agent string    `json:"agent"`
	Event string    `json:"event"`
	At    time.Time `json:"at"`
}

// Snapshot is everything a watcher (the cockpit) redraws from.
type Snapshot struct {
	Active    *Session
	Sessions  []SessionInfo
	Runs      []RunRecord // newest first
	Agents    []AgentEvent
	FlowRuns  []FlowRun
	Decisions []Decision // pending only
}

// RecallQuery selects what Recall searches.
type RecallQuery struct {
	Query   string
	RunID   string // only this run
	Feature string // only runs made for this feature
	Limit   int    // default 50
	// LowMemory gives the memory map's pages back as the scan goes, so a
	// search over a million lines does not add ~100 MB to the resident set
	// of a long-lived process (the cockpit). It costs the page faults of
	// reading them again: a one-shot CLI or MCP query leaves it off.
	LowMemory bool
}

// ForgetQuery says which runs' output to delete.
type ForgetQuery struct {
	RunID  string
	Before time.Time // runs that started before this; zero = no bound
	All    bool
}

// ErrNoFlowRun says a flow run id is unknown.
type ErrNoFlowRun struct{ ID string }

// VerifyReport is the outcome of replaying every session's log and
// rendering the status digest again.
type VerifyReport struct {
	Sessions int               `json:"sessions"`
	Events   int               `json:"events"`
	Problems []VerifyProblem   `json:"problems"`
	Checked  map[string]uint64 `json:"checked"`
}

// VerifyProblem names a session whose replayed state differs from the stored
// one, and the first event where they part; or, with File, a copy derived
// from the state (the status digest) that differs from it.
type VerifyProblem struct {
	Session string `json:"session"`
	Seq     uint64 `json:"seq"`
	File    string `json:"file,omitempty"`
	Message string `json:"message"`
}

// ExportReport says what an export wrote and what it could not read.
type ExportReport struct {
	Sessions int      `json:"sessions"`
	Events   int      `json:"events"`
	Problems []string `json:"problems"`
}

// ImportReport says what an import rebuilt.
type ImportReport struct {
	Path       string `json:"path"`
	Sessions   int    `json:"sessions"`
	Events     int    `json:"events"`
	Active     string `json:"active,omitempty"`
	MovedAside string `json:"moved_aside,omitempty"`
}

// DoctorReport is the health of a project's database.
type DoctorReport struct {
	Path string `json:"path"`
	OK   bool   `json:"ok"`
	// Fault is why the file could not be opened or read at all.
	Fault *Fault `json:"fault,omitempty"`
	// Integrity lists what bbolt's page check found: pages that are
	// unreachable, freed twice or out of bounds.
	Integrity []string      `json:"integrity"`
	Verify    *VerifyReport `json:"verify,omitempty"`
}

func (e ErrNoFlowRun) Error() string { return "no flow run " + e.ID }

func (p VerifyProblem) String() string {
	if p.File != "" {
		return p.File + ": " + p.Message
	}
	return fmt.Sprintf("session %s, event %d: %s", p.Session, p.Seq, p.Message)
}
