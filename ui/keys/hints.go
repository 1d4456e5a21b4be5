package keys

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"github.com/flowdeck/flowdeck/ui/layout"
)

// Hints renders, through hm, as many "key desc" pairs of bs as fit in w
// cells; each shows its first key only: a hint bar is for glancing, the
// help lists them all. The cockpit and the fleet view draw their bars with
// it.
func Hints(hm help.Model, w int, bs ...key.Binding) string {
	if w <= 0 || len(bs) == 0 {
		return ""
	}
	short := make([]key.Binding, len(bs))
	for i, bd := range bs {
		if h := bd.Help(); h.Key == Label(bd.Keys()) {
			bd.SetHelp(Label(bd.Keys()[:1]), h.Desc)
		}
		short[i] = bd
	}
	hm.SetWidth(w)
	// help.Model adds the item after which its ellipsis would not fit (and
	// all after it); drop from the end until the list fits.
	for n := len(short); n > 0; n-- {
		// A cut list ends in the (empty) ellipsis after a space.
		if s := strings.TrimSuffix(hm.ShortHelpView(short[:n]), " "); layout.Width(s) <= w {
			return s
		}
	}
	return ""
}

// TextOnly keeps, of each binding, the keys that type nothing (the named
// ones, not single characters): what works while a text field has the
// keys. A binding left with none is dropped.
func TextOnly(bs []key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(bs))
	for _, b := range bs {
		var ks []string
		for _, k := range b.Keys() {
			if len([]rune(k)) > 1 {
				ks = append(ks, k)
			}
		}
		if len(ks) == 0 {
			continue
		}
		out = append(out, key.NewBinding(key.WithKeys(ks...), key.WithHelp(Label(ks), b.Help().Desc)))
	}
	return out
}
