package styles

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// colourSGR finds a foreground or background colour in an SGR opening.
var colourSGR = regexp.MustCompile(`\x1b\[(?:[0-9]+;)*(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])[;m]`)

// each calls f with every Style field of s and its name.
func each(s *Styles, f func(name string, st Style)) {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if st, ok := v.Field(i).Interface().(Style); ok {
			f(v.Type().Field(i).Name, st)
		}
	}
}

// NO_COLOR: bold, faint, reverse and underline only, in every style.
func TestNoColorHasNoColour(t *testing.T) {
	for _, dark := range []bool{true, false} {
		each(New(dark, false), func(name string, st Style) {
			if out := st.Render("x"); colourSGR.MatchString(out) {
				t.Errorf("dark=%v %s draws a colour: %q", dark, name, out)
			}
		})
	}
}

// The palettes differ and each paints the states apart from one another.
func TestPalettesDiffer(t *testing.T) {
	dark, light := New(true, true), New(false, true)
	if dark.Accent.Render("x") == light.Accent.Render("x") {
		t.Fatal("dark and light accents are the same")
	}
	seen := map[string]model.FeatureState{}
	for _, fs := range []model.FeatureState{model.StateRunnable, model.StateInProgress, model.StateAwaitingReview, model.StateNeedsFix, model.StateBlocked, model.StateCompleted} {
		out := dark.State(fs).Render("x")
		if !colourSGR.MatchString(out) {
			t.Errorf("%s has no colour: %q", fs, out)
		}
		if o, dup := seen[out]; dup {
			t.Errorf("%s and %s look the same", fs, o)
		}
		seen[out] = fs
	}
}

// Render is lipgloss's own rendering, with the opening taken once.
func TestRenderMatchesLipgloss(t *testing.T) {
	for _, s := range []*Styles{New(true, true), New(false, true), New(true, false)} {
		each(s, func(name string, st Style) {
			want := st.Lipgloss().Render("ab")
			if strings.Contains(want, "\x1b[1;4;4ma") { // underline renders per rune
				return
			}
			if got := st.Render("ab"); got != want {
				t.Errorf("%s: Render = %q, lipgloss = %q", name, got, want)
			}
		})
		if got := s.Dim.Render(""); got != "" {
			t.Errorf("empty text painted: %q", got)
		}
	}
}

// The diff viewer's looks: in colour, added and removed lines are tinted
// apart, headers and hunks differ, and the token colours differ from one
// another; without colour the marks and emphasis carry it.
func TestDiffStyles(t *testing.T) {
	for _, dark := range []bool{true, false} {
		s := New(dark, true)
		seen := map[string]string{}
		for name, st := range map[string]Style{
			"DiffAddLine": s.DiffAddLine, "DiffDelLine": s.DiffDelLine, "DiffFile": s.DiffFile, "DiffHunk": s.DiffHunk,
			"SynKeyword": s.SynKeyword, "SynString": s.SynString, "SynComment": s.SynComment, "SynNumber": s.SynNumber, "SynType": s.SynType,
		} {
			out := st.Render("x")
			if !colourSGR.MatchString(out) {
				t.Errorf("dark=%v %s has no colour: %q", dark, name, out)
			}
			if o, dup := seen[out]; dup {
				t.Errorf("dark=%v %s and %s look the same", dark, name, o)
			}
			seen[out] = name
		}
	}
	plain := New(true, false)
	if plain.DiffFile.Render("x") == "x" || plain.DiffDelLine.Render("x") == "x" || plain.SynKeyword.Render("x") != "x" {
		t.Error("NO_COLOR: headers and removed lines should stand out, code should not be highlighted")
	}
}

// On draws a token's colour over a line's tint: both openings, the base's
// first, and nothing added when the base is plain.
func TestOn(t *testing.T) {
	s := New(true, true)
	open := func(st Style) string { o, _, _ := strings.Cut(st.Render("x"), "x"); return o }
	on := s.SynKeyword.On(s.DiffAddLine)
	if got, want := on.Render("if"), open(s.DiffAddLine)+open(s.SynKeyword)+"if\x1b[m"; got != want {
		t.Errorf("On = %q, want %q", got, want)
	}
	if got := s.SynKeyword.On(Style{}).Render("if"); got != s.SynKeyword.Render("if") {
		t.Errorf("On a plain base = %q", got)
	}
	if got := (Style{}).On(s.DiffAddLine).Render("if"); got != s.DiffAddLine.Render("if") {
		t.Errorf("plain On a tint = %q", got)
	}
}
