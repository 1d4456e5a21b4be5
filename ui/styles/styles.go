// Package styles holds the cockpit's palette: one Theme per background (dark,
// light) and a colourless one for NO_COLOR, plus the status glyphs.
//
// Styles are precomputed SGR prefixes rather than lipgloss styles: View paints
// a few hundred segments per frame and a string concatenation is much cheaper
// than a Style.Render.
package styles

import (
	"strconv"
	"strings"

	"flowdeck/model"
)

// Paint is an SGR prefix; painting appends a reset.
type Paint string

// Render wraps s in the paint, or returns s unchanged for an empty paint.
func (p Paint) Render(s string) string {
	if p == "" || s == "" {
		return s
	}
	return string(p) + s + reset
}

const reset = "\x1b[m"

func sgr(codes ...string) Paint {
	if len(codes) == 0 {
		return ""
	}
	return Paint("\x1b[" + strings.Join(codes, ";") + "m")
}

func fg(n int) string { return "38;5;" + strconv.Itoa(n) }
func bg(n int) string { return "48;5;" + strconv.Itoa(n) }

const (
	bold    = "1"
	faint   = "2"
	reverse = "7"
)

// Theme is every paint the cockpit uses.
type Theme struct {
	Dark  bool
	Color bool

	Text, Dim, Bold, Accent      Paint
	Border, BorderFocus          Paint
	Title, TitleFocus            Paint
	Selected, SelectedBlur       Paint
	OK, Warn, Error, Attention   Paint
	Upstream, Downstream, Match  Paint
	BarFull, BarEmpty, KeyHint   Paint
	PromptBox, PromptTitle, Mute Paint

	states map[model.FeatureState]Paint
}

// New returns the theme for a dark or light background; color false gives
// the NO_COLOR theme, which keeps only bold, faint and reverse.
func New(dark, color bool) Theme {
	t := Theme{Dark: dark, Color: color}
	t.Bold = sgr(bold)
	t.Selected = sgr(reverse)
	t.SelectedBlur = sgr(bold)
	t.TitleFocus = sgr(bold, reverse)
	t.Title = sgr(bold)
	t.PromptTitle = sgr(bold)
	if !color {
		t.Dim, t.Mute = sgr(faint), sgr(faint)
		t.Attention, t.Error, t.Accent = sgr(bold), sgr(bold), sgr(bold)
		t.Upstream, t.Downstream, t.Match = sgr(bold), sgr(bold), sgr(bold)
		t.BarFull = sgr(reverse)
		t.states = map[model.FeatureState]Paint{
			model.StateAwaitingReview: sgr(bold),
			model.StateNeedsFix:       sgr(bold),
			model.StateBlocked:        sgr(bold),
			model.StatePending:        sgr(faint),
		}
		return t
	}
	// 256-colour indices; the renderer downsamples for lesser terminals.
	p := darkPalette
	if !dark {
		p = lightPalette
	}
	t.Dim, t.Mute = sgr(fg(p.dim)), sgr(fg(p.dim))
	t.Accent = sgr(fg(p.accent))
	t.Border, t.BorderFocus = sgr(fg(p.border)), sgr(fg(p.accent))
	t.TitleFocus = sgr(bold, fg(p.titleFG), bg(p.accent))
	t.Title = sgr(bold, fg(p.dim))
	t.OK, t.Warn, t.Error = sgr(fg(p.ok)), sgr(fg(p.warn)), sgr(bold, fg(p.err))
	t.Attention = sgr(bold, fg(p.titleFG), bg(p.review))
	t.Upstream, t.Downstream = sgr(fg(p.up)), sgr(fg(p.down))
	t.Match = sgr(bold, "4")
	t.BarFull, t.BarEmpty = sgr(fg(p.ok)), sgr(fg(p.border))
	t.KeyHint = sgr(bold, fg(p.accent))
	t.PromptBox = sgr(fg(p.review))
	t.PromptTitle = sgr(bold, fg(p.review))
	t.states = map[model.FeatureState]Paint{
		model.StatePending:        sgr(fg(p.dim)),
		model.StateRunnable:       sgr(fg(p.runnable)),
		model.StateInProgress:     sgr(bold, fg(p.warn)),
		model.StateAwaitingReview: sgr(bold, fg(p.review)),
		model.StateNeedsFix:       sgr(bold, fg(p.err)),
		model.StateBlocked:        sgr(bold, fg(p.blocked)),
		model.StateCompleted:      sgr(fg(p.ok)),
	}
	return t
}

type palette struct {
	dim, border, accent, titleFG, ok, warn, err, review, blocked, runnable, up, down int
}

var (
	darkPalette  = palette{dim: 245, border: 240, accent: 75, titleFG: 16, ok: 114, warn: 221, err: 203, review: 213, blocked: 208, runnable: 117, up: 180, down: 147}
	lightPalette = palette{dim: 243, border: 250, accent: 26, titleFG: 231, ok: 28, warn: 130, err: 160, review: 127, blocked: 166, runnable: 31, up: 94, down: 55}
)

// State returns the paint of a feature state.
func (t Theme) State(s model.FeatureState) Paint { return t.states[s] }

// Label is a short word for a state, for narrow columns.
func Label(s model.FeatureState) string {
	switch s {
	case model.StateInProgress:
		return "running"
	case model.StateAwaitingReview:
		return "review"
	case model.StateNeedsFix:
		return "needs fix"
	}
	return string(s)
}

// EvidenceBadge is the short form of a feature's latest evidence: who
// produced it (obs/rep) and how it went (✓ ✗ ~), with the paint to use.
func (t Theme) EvidenceBadge(ev *model.Evidence) (string, Paint) {
	if ev == nil {
		return "", ""
	}
	src := "rep"
	if ev.Source == model.SourceObserved {
		src = "obs"
	}
	switch ev.Status {
	case model.ValidationPassed:
		return src + "✓", t.OK
	case model.ValidationFailed:
		return src + "✗", t.Error
	}
	return src + "~", t.Warn
}
