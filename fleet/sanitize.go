package fleet

import (
	"strings"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// Bounds on what a remote may make the fleet hold or show: a remote
// flowdeck is untrusted like any agent.
const (
	// MaxLine is the runes kept of any one-line string a remote sends
	// (labels, reasons, ids, goals, errors).
	MaxLine = 200
	// MaxWaits, MaxActive and MaxOptions bound a glance's lists; the
	// oldest waits are kept.
	MaxWaits   = 100
	MaxActive  = 50
	MaxOptions = 20
	// MaxGlanceBytes refuses a bigger glance outright.
	MaxGlanceBytes = 1 << 20
	// MaxMessageBytes bounds one JSON-RPC line from a transport.
	MaxMessageBytes = 4 << 20
	// MaxDiffBytes bounds the diff text Diff returns.
	MaxDiffBytes = 4 << 20
	// maxStderr is how much of a transport's stderr is kept for its error.
	maxStderr = 8 << 10
)

// line is a remote's string as one safe line of at most MaxLine runes.
func line(s string) string { return cut(termtext.Line(s), MaxLine) }

// cut keeps the first n runes of s, marking a cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
			break
		}
		count++
	}
	return s[:i] + "…"
}

// sanitizeGlance makes g safe to show and to keep: every string one
// sanitised, bounded line, every list bounded, counts not negative.
func sanitizeGlance(g *ops.FleetGlance) {
	g.Root, g.Session, g.Goal, g.Status, g.NextCommand = line(g.Root), line(g.Session), line(g.Goal), line(g.Status), line(g.NextCommand)
	g.Done, g.Total = max(g.Done, 0), max(g.Total, 0)
	if len(g.Active) > MaxActive {
		g.Active = g.Active[:MaxActive]
	}
	for i := range g.Active {
		a := &g.Active[i]
		a.Feature, a.Title, a.Agent, a.State = line(a.Feature), line(a.Title), line(a.Agent), line(a.State)
	}
	if len(g.Waits) > MaxWaits {
		g.Waits = g.Waits[:MaxWaits]
	}
	for i := range g.Waits {
		w := &g.Waits[i]
		w.Kind, w.Key, w.Label, w.Feature, w.Decision, w.Reason = line(w.Kind), line(w.Key), line(w.Label), line(w.Feature), line(w.Decision), line(w.Reason)
		if len(w.Options) > MaxOptions {
			w.Options = w.Options[:MaxOptions]
		}
		for j := range w.Options {
			w.Options[j].ID, w.Options[j].Label = line(w.Options[j].ID), line(w.Options[j].Label)
		}
	}
}

// sanitizeError makes a refusal from a remote safe: one-line, bounded
// strings.
func sanitizeError(e *model.Error) {
	e.Code, e.Message, e.Field = line(e.Code), line(e.Message), line(e.Field)
	r := &e.Recovery
	r.Stage, r.Prerequisite, r.Hint, r.NextCommand = line(r.Stage), line(r.Prerequisite), line(r.Hint), line(r.NextCommand)
	r.NextAction = nil // an argv from a remote: nothing the fleet runs
}

// diffText is a remote's diff made safe for a pane: escapes and controls
// gone but newlines and tabs, at most MaxDiffBytes (cut at a line end).
func diffText(s string) string {
	s = termtext.String(s)
	if len(s) > MaxDiffBytes {
		s = s[:MaxDiffBytes]
		if i := strings.LastIndexByte(s, '\n'); i > 0 {
			s = s[:i+1]
		} else {
			s = strings.ToValidUTF8(s, "") + "\n"
		}
		s += "# … cut: the diff is bigger than the fleet shows\n"
	}
	return s
}
