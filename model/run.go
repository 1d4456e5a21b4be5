package model

import (
	"path/filepath"
	"slices"
	"time"
)

// Command runs as stored: the record of each run and what a recall search
// finds in their output. db stores them; runner and capture make them.

// Run outcomes stored in RunRecord.Outcome besides the runner's own.
const (
	RunRunning = "running"
	// RunInterrupted is the outcome of a run whose capturing process died: its
	// output is kept up to the last commit, its exit is unknown (-1).
	RunInterrupted = "interrupted"
)

// Isolation says how a run was confined.
type Isolation struct {
	Mechanism string   `json:"mechanism"`
	Enforced  []string `json:"enforced,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// RunRecord describes one command run. Output and index live in their own
// buckets; the record stays small so listing runs is cheap.
type RunRecord struct {
	ID        string        `json:"id"`
	Session   string        `json:"session,omitempty"`
	Feature   string        `json:"feature,omitempty"`
	Scope     string        `json:"scope,omitempty"`
	Actor     string        `json:"actor"`
	Argv      []string      `json:"argv"`
	Cwd       string        `json:"cwd"`
	Start     time.Time     `json:"start"`
	Duration  time.Duration `json:"duration"`
	ExitCode  int           `json:"exit_code"`
	Signal    string        `json:"signal,omitempty"`
	Outcome   string        `json:"outcome"`
	Isolation Isolation     `json:"isolation"`
	Category  string        `json:"category,omitempty"`
	Class     string        `json:"class,omitempty"`
	Pattern   string        `json:"pattern,omitempty"`
	Summary   string        `json:"summary,omitempty"`
	Detail    string        `json:"detail,omitempty"`
	Bytes     int64         `json:"bytes"`
	Lines     int64         `json:"lines"`
	// IndexedBytes is how much text recall can search; IndexTruncated says
	// the run printed more than db.MaxIndexBytes and the rest is not indexed.
	IndexedBytes   int64 `json:"indexed_bytes"`
	IndexTruncated bool  `json:"index_truncated,omitempty"`
	// Forgotten is set when the output and index were deleted; the record
	// stays because evidence may point at it.
	Forgotten bool `json:"forgotten,omitempty"`
	// Internal marks a flow's own plumbing (an exec block whose output is
	// stored, not shown): the cockpit hides it unless asked.
	Internal bool `json:"internal,omitempty"`
	// FlowRun is the flow run whose step ran this command (an exec block or
	// an agent call): with several agents' flows at once it tells whose
	// output this is.
	FlowRun string `json:"flow_run,omitempty"`
}

// Hit is one matching line.
type Hit struct {
	RunID   string   `json:"run"`
	Argv    []string `json:"argv"`
	Line    int      `json:"line"` // 1-based
	Text    string   `json:"text"`
	Matched []int    `json:"matched"` // byte offsets in Text of the matched characters
	Score   int      `json:"score"`
}

// PromptStdin is the shell the flow engine wraps an agent in when the agent
// reads its prompt on stdin: argv is {"sh", "-c", PromptStdin, "agent",
// AGENT...}.
const PromptStdin = `exec "$@" < "$FLOWDECK_PROMPT_FILE"`

// CommandLine is a run's command for a person: the agent's own command
// instead of the engine's stdin wrapper around it.
// A sandboxed agent's bwrap arguments, up to its "--", are shown as
// "[sandbox]".
func CommandLine(argv []string) string {
	prefix := ""
	if len(argv) > 0 && filepath.Base(argv[0]) == "bwrap" {
		if i := slices.Index(argv, "--"); i > 0 {
			prefix, argv = "[sandbox] ", argv[i+1:]
		}
	}
	if len(argv) > 4 && slices.Equal(argv[:4], []string{"sh", "-c", PromptStdin, "agent"}) {
		return prefix + ShellJoin(argv[4:]) + " < prompt"
	}
	return prefix + ShellJoin(argv)
}
