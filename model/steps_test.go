package model_test

import (
	"reflect"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// Activating another stored session archives the active one first;
// activating the active one does nothing; a new goal archives the session
// in progress and names it; other actions are one step on the active
// session.
func TestSteps(t *testing.T) {
	a := &model.Session{ID: "a", Goal: "ship it", Status: model.StatusPlanning}
	b := &model.Session{ID: "b", Goal: "other", Archived: true}
	act := model.ActivateSession{ID: "b"}
	for _, c := range []struct {
		name           string
		active, target *model.Session
		action         model.Action
		want           []model.Step
	}{
		{"switch", a, b, act, []model.Step{{Session: a, Action: model.ResetSession{}}, {Session: b, Action: act}}},
		{"same", a, a, model.ActivateSession{ID: "a"}, nil},
		{"none active", nil, b, act, []model.Step{{Session: b, Action: act}}},
		{"unknown", a, nil, act, []model.Step{{Session: nil, Action: act}}},
		{"new goal", a, nil, model.PlanStart{ID: "c", Goal: "new"}, []model.Step{
			{Session: a, Action: model.ResetSession{Reason: "replaced by session c"}},
			{Session: a, Action: model.PlanStart{ID: "c", Goal: "new", Replaces: "a"}}}},
		{"same goal", a, nil, model.PlanStart{ID: "c", Goal: "Ship  it"}, []model.Step{{Session: a, Action: model.PlanStart{ID: "c", Goal: "Ship  it"}}}},
		{"note", a, nil, model.AddNote{Text: "x"}, []model.Step{{Session: a, Action: model.AddNote{Text: "x"}}}},
	} {
		if got := model.Steps(c.active, c.target, c.action); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
