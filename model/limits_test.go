package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestLimitsRefuseOversizedInputNamingTheField(t *testing.T) {
	big := strings.Repeat("x", model.MaxTextBytes+1)
	var s *model.Session
	ctx := model.Context{Now: baseTime, Actor: "t"}
	s, _, err := model.Execute(s, model.PlanStart{ID: "limits", Goal: "limits"}, ctx)
	if err != nil {
		t.Fatal(err)
	}
	manyFeatures := make([]model.Feature, model.MaxPlanFeatures+1)
	for i := range manyFeatures {
		manyFeatures[i] = mkFeature(fmt.Sprintf("f%d", i))
	}
	cases := []struct {
		name   string
		action model.Action
		code   string
		field  string
	}{
		{"note", model.AddNote{Text: big}, model.CodeTextTooLarge, "text is"},
		{"goal", model.PlanStart{Goal: big}, model.CodeTextTooLarge, "goal is"},
		{"finding", model.ReviewFeature{Feature: "a", Decision: model.ReviewApproved, Findings: []string{"ok", big}}, model.CodeTextTooLarge, "findings[1]"},
		{"command", model.Validate{Feature: "a", Command: big}, model.CodeTextTooLarge, "command is"},
		{"feature summary", model.PlanApply{Plan: mkPlan(mkFeature("a"), model.Feature{ID: "b", Summary: big})}, model.CodeTextTooLarge, "features[1] (b).summary"},
		{"features", model.PlanApply{Plan: mkPlan(manyFeatures...)}, model.CodePlanTooLarge, "10001 features"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, err := model.Decide(s, c.action, ctx)
			e, ok := model.AsError(err)
			if !ok || e.Code != c.code || !strings.Contains(e.Message, c.field) || len(events) > 0 {
				t.Fatalf("got %v (%d events), want %s naming %q", err, len(events), c.code, c.field)
			}
		})
	}
	// At the limit is fine.
	if _, err := model.Decide(s, model.AddNote{Text: big[1:]}, ctx); err != nil {
		t.Fatalf("a note of exactly the limit was refused: %v", err)
	}
}

func TestParsePlanRefusesHugeAndDeepDocuments(t *testing.T) {
	huge := []byte(`{"summary":"` + strings.Repeat("x", model.MaxPlanBytes) + `","features":[]}`)
	if _, err := model.ParsePlan(huge); !model.TooLarge(err) {
		t.Fatalf("huge plan: %v", err)
	}
	deep := `{"summary":"s","features":[{"id":"a","title":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}]}`
	_, err := model.ParsePlan([]byte(deep))
	if err == nil || !strings.Contains(err.Error(), "nested deeper than") || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("deep plan: %v", err)
	}
	// Brackets inside strings do not count.
	quoted := `{"summary":"` + strings.Repeat("[{", 40) + `\"","features":[{"id":"a","title":"A"}]}`
	if _, err := model.ParsePlan([]byte(quoted)); err != nil {
		t.Fatalf("brackets in a string: %v", err)
	}
}
