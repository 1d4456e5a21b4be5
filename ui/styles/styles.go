// Package styles holds the cockpit's look: a Styles value of lipgloss styles
// named for what they mean (a title, a dim note, a state), one per terminal
// background (dark, light) and a colourless one for NO_COLOR, plus the
// rounded border the panes are framed with and the bubbles/help styles of the
// hint bar and the full help.
package styles

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/model"
)

// Style is a lipgloss style and the SGR opening lipgloss renders for it,
// taken once when the Styles are built. View paints a few hundred short
// segments a frame: Style.Render through lipgloss costs ~1.6 µs a call (it
// handles tabs, wrapping, padding and borders the segments never need), a
// concatenation with the precomputed opening ~30 ns, with the same bytes.
type Style struct {
	lg   lipgloss.Style
	open string
}

func newStyle(s lipgloss.Style) Style {
	// Tabs are the caller's business (Fit turns them into one space).
	s = s.TabWidth(lipgloss.NoTabConversion)
	open, _, _ := strings.Cut(s.Render("x"), "x")
	return Style{lg: s, open: open}
}

// Render paints text, or returns it unchanged when it is empty or the style
// sets nothing.
func (s Style) Render(text string) string {
	if s.open == "" || text == "" {
		return text
	}
	return s.open + text + ansi.ResetStyle
}

// Lipgloss is the style itself, for bubbles components that take one.
func (s Style) Lipgloss() lipgloss.Style { return s.lg }

// On is s drawn over base: base's attributes first, s's on top. A code
// token in an added line keeps the line's tint under its own colour; one
// concatenation of two openings, where lipgloss would render both styles.
func (s Style) On(base Style) Style {
	if base.open == "" {
		return s
	}
	return Style{lg: s.lg.Inherit(base.lg), open: base.open + s.open}
}

// Styles is every style the cockpit draws with.
type Styles struct {
	// Dark tells which palette this is (and which glamour style the detail
	// pane renders markdown with); Color is false under NO_COLOR.
	Dark, Color bool

	Text, Dim, Bold, Accent  Style
	Title, TitleFocused      Style // a pane's name in its frame
	Border, BorderFocused    Style // the frame of a pane or dialog
	DialogTitle              Style
	Selected, SelectedBlur   Style // the selected row, focused or not
	Ok, Warn, Err, Attention Style
	Upstream, Downstream     Style // the graph's dependency marks
	Match                    Style // the letters a filter or search matched
	BarFull, BarEmpty        Style // the progress bar
	KeyHint                  Style // a key's name in hints and help
	StatePending, StateRunnable, StateRunning, StateReview,
	StateNeedsFix, StateBlocked, StateCompleted Style

	// The diff viewer: a file's header row and a hunk's @@ row; the + and -
	// marks and counts; the tint an added or removed line is drawn on (its
	// code's tokens go On it); the line-number gutter.
	DiffFile, DiffHunk       Style
	DiffAdd, DiffDel         Style
	DiffAddLine, DiffDelLine Style
	DiffLineNo               Style
	// Code tokens, chroma's categories reduced to a few; empty under
	// NO_COLOR, where code is not highlighted.
	SynKeyword, SynString, SynComment, SynNumber, SynType Style

	// Frame is the border panes and dialogs are drawn with.
	Frame lipgloss.Border
	// Help styles the hint bar and the full help (bubbles/help).
	Help help.Styles
}

// palette is one background's colours, as 256-colour indices: the renderer
// downsamples them for lesser terminals.
type palette struct {
	dim, border, accent, titleFG, ok, warn, err, review, blocked, runnable, up, down color.Color
	// the diff viewer's backgrounds (added, removed, a file's header) and
	// code tokens
	addBG, delBG, fileBG, keyword, str, number color.Color
}

// newPalette picks each colour for the background.
func newPalette(dark bool) palette {
	ld := lipgloss.LightDark(dark)
	col := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	return palette{
		dim: col("243", "245"), border: col("250", "240"), accent: col("26", "75"),
		titleFG: col("231", "16"), ok: col("28", "114"), warn: col("130", "221"),
		err: col("160", "203"), review: col("127", "213"), blocked: col("166", "208"),
		runnable: col("31", "117"), up: col("94", "180"), down: col("55", "147"),
		addBG: col("194", "22"), delBG: col("224", "52"), fileBG: col("254", "237"),
		keyword: col("90", "176"), str: col("94", "180"), number: col("130", "215"),
	}
}

// New returns the styles for a dark or light background; colour false gives
// the NO_COLOR styles, which keep only bold, faint, reverse and underline.
func New(dark, colour bool) *Styles {
	st := lipgloss.NewStyle
	s := &Styles{Dark: dark, Color: colour, Frame: lipgloss.RoundedBorder()}
	s.Text = newStyle(st())
	s.Bold = newStyle(st().Bold(true))
	s.Selected = newStyle(st().Reverse(true))
	s.SelectedBlur = newStyle(st().Bold(true))
	if !colour {
		bold, faint := newStyle(st().Bold(true)), newStyle(st().Faint(true))
		s.Title, s.TitleFocused, s.DialogTitle = bold, newStyle(st().Bold(true).Reverse(true)), bold
		s.Dim = faint
		s.Attention, s.Err, s.Accent, s.KeyHint = bold, bold, bold, Style{}
		s.Upstream, s.Downstream, s.Match = bold, bold, bold
		s.BarFull = s.Selected
		s.StatePending = faint
		s.StateReview, s.StateNeedsFix, s.StateBlocked = bold, bold, bold
		// A removed line fades; the marks say + and -; headers stand out.
		s.DiffFile, s.DiffHunk = s.TitleFocused, bold
		s.DiffAdd, s.DiffDel = bold, bold
		s.DiffDelLine, s.DiffLineNo = faint, faint
		s.Help = s.helpStyles()
		return s
	}
	p := newPalette(dark)
	fg := func(c color.Color) lipgloss.Style { return st().Foreground(c) }
	s.Dim = newStyle(fg(p.dim))
	s.Accent = newStyle(fg(p.accent))
	s.Border, s.BorderFocused = newStyle(fg(p.border)), newStyle(fg(p.accent))
	s.Title = newStyle(fg(p.dim).Bold(true))
	s.TitleFocused = newStyle(fg(p.titleFG).Background(p.accent).Bold(true))
	s.DialogTitle = newStyle(fg(p.review).Bold(true))
	s.Ok, s.Warn, s.Err = newStyle(fg(p.ok)), newStyle(fg(p.warn)), newStyle(fg(p.err).Bold(true))
	s.Attention = newStyle(fg(p.titleFG).Background(p.review).Bold(true))
	s.Upstream, s.Downstream = newStyle(fg(p.up)), newStyle(fg(p.down))
	s.Match = newStyle(st().Bold(true).Underline(true))
	s.BarFull, s.BarEmpty = s.Ok, s.Border
	s.KeyHint = newStyle(fg(p.accent).Bold(true))
	s.StatePending = s.Dim
	s.StateRunnable = newStyle(fg(p.runnable))
	s.StateRunning = newStyle(fg(p.warn).Bold(true))
	s.StateReview = newStyle(fg(p.review).Bold(true))
	s.StateNeedsFix = newStyle(fg(p.err).Bold(true))
	s.StateBlocked = newStyle(fg(p.blocked).Bold(true))
	s.StateCompleted = s.Ok
	s.DiffFile = newStyle(fg(p.accent).Background(p.fileBG).Bold(true))
	s.DiffHunk = newStyle(fg(p.runnable))
	s.DiffAdd, s.DiffDel = newStyle(fg(p.ok).Bold(true)), newStyle(fg(p.err).Bold(true))
	s.DiffAddLine, s.DiffDelLine = newStyle(st().Background(p.addBG)), newStyle(st().Background(p.delBG))
	s.DiffLineNo = s.Dim
	s.SynKeyword, s.SynString = newStyle(fg(p.keyword)), newStyle(fg(p.str))
	s.SynComment, s.SynNumber = s.Dim, newStyle(fg(p.number))
	s.SynType = newStyle(fg(p.down))
	s.Help = s.helpStyles()
	return s
}

// helpStyles are the hint bar's and the full help's: keys as key hints,
// descriptions and separators dim in the short help, plain in the full one.
func (s *Styles) helpStyles() help.Styles {
	k, d := s.KeyHint.Lipgloss(), s.Dim.Lipgloss()
	return help.Styles{
		ShortKey: k, ShortDesc: d, ShortSeparator: d, Ellipsis: d,
		FullKey: k, FullDesc: s.Text.Lipgloss(), FullSeparator: d,
	}
}

// Input is the styles of a text field (filter, search, command line,
// recall, a form's field): bubbles' defaults for the background, or a faint
// placeholder only under NO_COLOR, with a steady cursor, which keeps frames
// (and goldens) still.
func (s *Styles) Input() textinput.Styles {
	st := textinput.DefaultStyles(s.Dark)
	if !s.Color {
		faint := s.Dim.Lipgloss()
		st.Focused = textinput.StyleState{Placeholder: faint}
		st.Blurred = textinput.StyleState{Placeholder: faint}
	}
	st.Cursor.Blink = false
	return st
}

// State returns the style of a feature state.
func (s *Styles) State(fs model.FeatureState) Style {
	switch fs {
	case model.StatePending:
		return s.StatePending
	case model.StateRunnable:
		return s.StateRunnable
	case model.StateInProgress:
		return s.StateRunning
	case model.StateAwaitingReview:
		return s.StateReview
	case model.StateNeedsFix, model.StateInterrupted: // both wait for the person to act on a failure
		return s.StateNeedsFix
	case model.StateBlocked:
		return s.StateBlocked
	case model.StateCompleted:
		return s.StateCompleted
	}
	return Style{}
}

// Label is a short word for a state, for narrow columns.
func Label(s model.FeatureState) string {
	switch s {
	case model.StateInProgress:
		return "running"
	case model.StateAwaitingReview:
		return "review"
	case model.StateNeedsFix:
		return "needs fix"
	case model.StateInterrupted:
		return "interrupt" // fits the features pane's 9 cells
	}
	return string(s)
}

// EvidenceBadge is the short form of a feature's latest evidence: who
// produced it (obs/rep) and how it went (✓ ✗ ~), with the style to use.
func (s *Styles) EvidenceBadge(ev *model.Evidence) (string, Style) {
	if ev == nil {
		return "", Style{}
	}
	src := "rep"
	if ev.Source == model.SourceObserved {
		src = "obs"
	}
	switch ev.Status {
	case model.ValidationPassed:
		return src + "✓", s.Ok
	case model.ValidationFailed:
		return src + "✗", s.Err
	}
	return src + "~", s.Warn
}
