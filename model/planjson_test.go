package model_test

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

const examplePlan = `{
  "summary": "a cockpit",
  "overview": "one binary",
  "requirements": ["fast"],
  "decisions": ["bbolt"],
  "features": [
    {"id": "store", "title": "Store", "files": ["db/db.go"], "verification": ["go test ./db/"]},
    {"id": "cli", "title": "CLI", "depends_on": ["store"], "blocked_by": []}
  ],
  "completion": {"min_completed_features": 1}
}
`

func TestParsePlanAcceptsTheDocumentedShape(t *testing.T) {
	p, err := model.ParsePlan([]byte(examplePlan))
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary != "a cockpit" || p.Overview != "one binary" || len(p.Requirements) != 1 || len(p.Decisions) != 1 ||
		len(p.Features) != 2 || p.Completion.MinCompletedFeatures != 1 {
		t.Fatalf("parsed %+v", p)
	}
	cli := p.Feature("cli")
	if cli == nil || cli.Title != "CLI" || len(cli.DependsOn) != 1 || cli.DependsOn[0] != "store" {
		t.Fatalf("cli %+v", cli)
	}
	if f := p.Feature("store"); f.Files[0] != "db/db.go" || f.Verification[0] != "go test ./db/" {
		t.Fatalf("store %+v", f)
	}
	if err := model.ValidatePlan(p); err != nil {
		t.Fatal(err)
	}
	// Whitespace after the object is not trailing data.
	if _, err := model.ParsePlan([]byte(examplePlan + "\n\t \r\n")); err != nil {
		t.Fatal(err)
	}
}

func TestParsePlanRejects(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // substrings of the error
	}{
		{"unknown top-level field", "{\n  \"summary\": \"s\",\n  \"bogus\": 1,\n  \"features\": []\n}", []string{"line 3, column 3", `"bogus"`}},
		{"unknown feature field", "{\"features\": [\n  {\"id\": \"a\"},\n  {\"id\": \"b\",  \"extra\": true}\n]}", []string{"line 3, column 16", `"extra"`}},
		{"unknown completion field", "{\"features\": [],\n\"completion\": {\"min\": 1}}", []string{"line 2, column 16", `"min"`}},
		// depends_on is a feature field, not a plan field: the error must
		// point at the misplaced one, not at the valid one before it.
		{"feature field at the top", "{\"features\": [{\"id\": \"a\", \"depends_on\": []}],\n \"depends_on\": [\"a\"]}", []string{"line 2, column 2", "depends_on"}},
		{"trailing object", "{\"features\": []}\n  {\"features\": []}", []string{"line 2, column 3", "after the plan"}},
		{"trailing garbage", "{\"features\": []} x", []string{"line 1, column 18", "after the plan"}},
		{"trailing brace", "{\"features\": []}}", []string{"line 1, column 17", "after the plan"}},
		{"syntax error", "{\n\"features\": [1,]\n}", []string{"line 2, column"}},
		{"type error", "{\n\"features\": {\"id\": \"a\"}\n}", []string{"line 2, column"}},
		{"truncated", "{\"features\": [", []string{"line 1"}},
		{"empty", "", []string{"empty"}},
		{"blank", " \n ", []string{"empty"}},
		{"status", `{"features": [{"id": "a", "status": "completed"}]}`, []string{"features[0]", "a", "status"}},
		{"evidence", `{"features": [{"id": "a"}, {"id": "b", "validations": [{"status": "passed"}]}]}`, []string{"features[1]", "b"}},
		{"reviews", `{"features": [{"id": "a", "reviews": [{"decision": "approved"}]}]}`, []string{"features[0]"}},
		{"started_seq", `{"features": [{"id": "a", "started_seq": 4}]}`, []string{"features[0]"}},
		{"outcome", `{"features": [{"id": "a", "outcome": "completed"}]}`, []string{"features[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := model.ParsePlan([]byte(tt.doc))
			if err == nil {
				t.Fatalf("accepted %+v", p)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParsePlanLeavesValidationToValidatePlan(t *testing.T) {
	// Parsing is only about the document; ids and dependencies are
	// ValidatePlan's job, which then names them.
	p, err := model.ParsePlan([]byte(`{"features": [{"id": "Bad"}, {"id": "b", "depends_on": ["ghost"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := model.AsError(model.ValidatePlan(p))
	if e == nil || e.Code != model.CodePlanInvalidID {
		t.Fatalf("ValidatePlan = %v", e)
	}
	p, _ = model.ParsePlan([]byte(`null`))
	if e, _ := model.AsError(model.ValidatePlan(p)); e == nil || e.Code != model.CodePlanEmpty {
		t.Fatalf("null plan: %v", e)
	}
}
