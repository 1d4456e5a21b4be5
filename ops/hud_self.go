package ops

import (
	"strings"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// HUDSelf is who reads the HUD, as flowdeck told the agent it launched
// ($FLOWDECK_AGENT, $FLOWDECK_FEATURE); zero for the person and for an
// agent the person started.
type HUDSelf struct {
	Agent   string
	Feature string
}

// BuildHUDFor is BuildHUD for reader self: an agent on a feature sees its
// own feature and next step, not the session's (whose next step is often
// another worker's feature), and an agent flowdeck launched is told that
// flowdeck drives the session and the person's decisions are not its own.
func BuildHUDFor(st *db.Store, self HUDSelf) (*HUD, error) {
	if st == nil || self == (HUDSelf{}) {
		return BuildHUD(st)
	}
	g, err := st.Glance()
	if err != nil {
		return nil, err
	}
	h := hudOfGlance(g)
	h.focus(g.Active, self)
	return h, nil
}

// focus narrows h to self's feature and says who self is.
func (h *HUD) focus(s *model.Session, self HUDSelf) {
	var f *model.Feature
	if s != nil && s.Plan != nil && self.Feature != "" {
		f = s.Plan.Feature(self.Feature)
	}
	h.You = youLine(self, f != nil)
	if f == nil {
		return
	}
	state := model.StateOf(s, f)
	h.Active = &HUDFeature{ID: f.ID, Title: f.Title, State: string(state), Agent: f.Agent, Verification: f.Verification}
	h.Claims, h.ClaimsMore = nil, 0
	// Only the waits about this feature: plan approval, the final review and
	// the flows' decisions are the person's, and other features are other
	// workers'.
	var waits []string
	for _, w := range h.Waits {
		if mentions(w, f.ID) {
			waits = append(waits, w)
		}
	}
	h.Waits = waits
	if v := s.Execution.LastValidation; v == nil || v.Feature != f.ID {
		h.LastValidation = ""
	}
	h.NextCommand = "flowdeck flow status"
	if f.Status == model.FeatureInProgress {
		h.NextCommand = model.NextForFeature(s, f.ID)
	}
}

// youLine says who reads the HUD and what is theirs to do.
func youLine(self HUDSelf, known bool) string {
	var b strings.Builder
	if self.Agent != "" {
		b.WriteString(self.Agent)
	} else {
		b.WriteString("an agent")
	}
	if self.Feature != "" && known {
		b.WriteString(" on feature " + self.Feature)
	}
	if self.Agent != "" {
		b.WriteString(", launched by flowdeck: flowdeck drives the session; do your step and answer it. Plan approval, reviews, the final review, decisions and land are not yours")
	}
	return b.String()
}

// mentions reports whether wait w is about feature id (as hudOf words them:
// "review of ID …", "blocked ID: …").
func mentions(w, id string) bool {
	for _, word := range strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == ':' || r == '(' || r == ')' }) {
		if word == id {
			return true
		}
	}
	return false
}
