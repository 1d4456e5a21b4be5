package ops

import (
	"context"
	"strings"

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/worktrees"
)

// RunResult is a finished run as an agent reads it: each fact once, in
// snake_case, the output as a bounded excerpt (the failures, when the
// pattern knows them); the whole output is in `flowdeck show RUN_ID`. When it
// was run for a feature, the evidence it became, or (as error) why not.
type RunResult struct {
	OK         bool         `json:"ok"`
	Error      *model.Error `json:"error,omitempty"`
	RunID      string       `json:"run_id"`
	Command    []string     `json:"command"`
	ExitCode   int          `json:"exit_code"`
	Signal     string       `json:"signal,omitempty"`
	Outcome    string       `json:"outcome"`
	DurationMS int64        `json:"duration_ms"`
	// Dir is where the command ran: a feature's worktree, when it has one.
	Dir string `json:"dir,omitempty"`
	Classification
	Evidence *EvidenceView `json:"evidence,omitempty"`
	// NextCommand is, for a run made for a feature, what the session needs
	// next now that the run is recorded (as every action result says).
	NextCommand string `json:"next_command,omitempty"`

	// For Go callers: the record, the classification and the headline.
	Run           model.RunRecord `json:"-"`
	Class         patterns.Result `json:"-"`
	Headline      string          `json:"-"`
	EvidenceError *model.Error    `json:"-"`
	EvidenceFull  *model.Evidence `json:"-"`
}

// Classification is how a run's output was classified, in snake_case, with
// at most an excerpt of the output.
type Classification struct {
	Class    string         `json:"class"`
	Category string         `json:"category,omitempty"`
	Pattern  string         `json:"pattern,omitempty"`
	Summary  string         `json:"summary,omitempty"`
	Counts   map[string]int `json:"counts,omitempty"`
	Bytes    int64          `json:"bytes"`
	Lines    int64          `json:"lines"`
	// Excerpt is the failure detail or a passthrough output, cut to
	// MaxExcerptLines and MaxExcerptBytes (Truncated says so).
	Excerpt   string `json:"excerpt,omitempty"`
	Truncated bool   `json:"excerpt_truncated,omitempty"`
}

// Bounds of a result's excerpt: what an agent needs to act on a failure,
// not the whole log (recall and show have that).
const (
	MaxExcerptLines = 40
	MaxExcerptBytes = 4 << 10
)

// Classify is c as results carry it.
func Classify(c patterns.Result) Classification {
	out := Classification{Class: string(c.Class), Category: string(c.Category), Pattern: c.Pattern,
		Summary: c.Summary, Counts: c.Counts, Bytes: c.Bytes, Lines: c.Lines}
	if c.Class == patterns.Failure || c.Class == patterns.Passthrough {
		out.Excerpt, out.Truncated = excerpt(c.Detail)
	}
	return out
}

// excerpt is the first MaxExcerptLines lines of detail within
// MaxExcerptBytes (the failures come first in a failure's detail).
func excerpt(detail string) (string, bool) {
	detail = strings.TrimRight(detail, "\n")
	lines := strings.SplitAfter(detail, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == MaxExcerptLines || b.Len()+len(l) > MaxExcerptBytes {
			return strings.TrimRight(b.String(), "\n"), true
		}
		b.WriteString(l)
	}
	return detail, false
}

// Refusal is the evidence refusal: the command ran, but its result is not
// evidence. A failing command is not a refusal; it is what the run found.
func (r *RunResult) Refusal() *model.Error { return r.EvidenceError }

// Run runs one command. When its result could not be recorded as evidence
// on the feature it names, it is refused before the command starts. With
// inWorktree a feature's run goes to the feature's worktree when it has one
// (worktrees.PlaceRun), after the precheck, so that a refused run commits
// nothing there; the git lock it takes for that settles a merge a crashed
// completion left first, so a worktree made again starts from the
// integration branch as the stored state says it is.
func Run(ctx context.Context, st *db.Store, opts capture.Options, inWorktree bool) (Result, error) {
	if err := capture.Precheck(st, opts.Feature, opts.Scope); err != nil {
		if refusal, ok := model.AsError(err); ok {
			return Refused(refusal), nil
		}
		return nil, err
	}
	if err := worktrees.PlaceRun(st, &opts, inWorktree); err != nil {
		return nil, err
	}
	res, err := capture.Run(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	rec := res.Run
	class := Classify(res.Classification)
	if rec.Outcome != "exited" && rec.Summary != "" {
		// A run that was ended (timeout, stall, memory) is summarized by
		// why, not by the exit status its kill left behind.
		class.Summary = rec.Summary
	}
	return &RunResult{
		NextCommand: res.NextCommand,
		OK:          rec.ExitCode == 0 && res.EvidenceError == nil, Error: res.EvidenceError,
		RunID: rec.ID, Command: rec.Argv, ExitCode: rec.ExitCode, Signal: rec.Signal, Outcome: rec.Outcome,
		DurationMS: rec.Duration.Milliseconds(), Classification: class, Dir: rec.Cwd,
		Evidence: viewEvidence(res.Evidence, true),
		Run:      rec, Class: res.Classification, Headline: res.Headline,
		EvidenceError: res.EvidenceError, EvidenceFull: res.Evidence,
	}, nil
}
