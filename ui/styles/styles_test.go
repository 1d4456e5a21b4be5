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
