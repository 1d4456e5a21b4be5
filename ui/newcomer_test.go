package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// Tests of issue 23: what a newcomer meets in the first hour.

// A feature blocked while the session runs on (another feature is active)
// says why in its row, in the session bar (it waits for the person) and in
// the reset prompt, not only at the bottom of its doc.
func TestBlockReasonShown(t *testing.T) {
	st := newStore(t)
	plan := model.Plan{Summary: "two at once", MaxParallel: 2, Features: []model.Feature{
		{ID: "store", Title: "Store"}, {ID: "api", Title: "API"}, {ID: "ui", Title: "UI", DependsOn: []string{"store", "api"}},
	}}
	for _, a := range []model.Action{model.PlanStart{Goal: "parallel"}, model.PlanApply{Plan: plan}, model.PlanApprove{},
		model.RunStart{Feature: "store", Agent: "w1"}, model.RunStart{Feature: "api", Agent: "w2"},
		model.RunComplete{Feature: "api", Outcome: model.OutcomeBlocked, Summary: "needs an SMTP sandbox\nand more"}} {
		if _, err := st.Do(a, "tester", t0.Add(-time.Minute)); err != nil {
			t.Fatalf("%s: %v", a.Name(), err)
		}
	}
	if s := active(t, st); s.Status != model.StatusRunning {
		t.Fatalf("session %s, want running on", s.Status)
	}
	h := newHarness(t, st, 80, 24, zeroConfig())
	lines := strings.Split(h.screen(), "\n")
	if !strings.Contains(lines[1], "blocked api: needs an SMTP sandbox") {
		t.Errorf("the session bar does not say why api is blocked:\n%s", h.screen())
	}
	row := ""
	for _, l := range lines {
		if strings.Contains(l, "■ api") {
			row = l
		}
	}
	if !strings.Contains(row, "blocked") || !strings.Contains(row, "needs an SMTP sandbox") || strings.Contains(row, "and more") {
		t.Errorf("api's row does not say why on one line: %q\n%s", row, h.screen())
	}
	h.key("1", "g", "j", "r")
	h.mustSee("Reset api?", "Blocked: needs an SMTP sandbox")
}
