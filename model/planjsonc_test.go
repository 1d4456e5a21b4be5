package model_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/flowdeck/flowdeck/model"
)

const commentedPlan = `// The plan for the cockpit.
{
  /* one line */
  "summary": "a cockpit", // trailing comment
  "features": [
    // the store first
    {"id": "store", "title": "Store", "verification": ["go test ./db/ && echo ok"],},
    {"id": "cli", "title": "CLI", "depends_on": ["store",]}, // a trailing comma
  ],
}
// the end
`

func TestParsePlanReadsJSONC(t *testing.T) {
	p, err := model.ParsePlan([]byte(commentedPlan))
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary != "a cockpit" || len(p.Features) != 2 || p.Features[1].DependsOn[0] != "store" ||
		p.Features[0].Verification[0] != "go test ./db/ && echo ok" {
		t.Fatalf("parsed %+v", p)
	}
	if err := model.ValidatePlan(p); err != nil {
		t.Fatal(err)
	}
	// The last line a comment with no newline after it, as some editors save.
	if _, err := model.ParsePlan([]byte(strings.TrimSuffix(commentedPlan, "\n"))); err != nil {
		t.Fatalf("a last comment without a newline: %v", err)
	}
	// A comment marker inside a string is text.
	p, err = model.ParsePlan([]byte(`{"summary": "see http://x/*y*/", "features": [{"id": "a", "title": "// not a comment"}]}`))
	if err != nil || p.Summary != "see http://x/*y*/" || p.Features[0].Title != "// not a comment" {
		t.Fatalf("markers in strings: %+v, %v", p, err)
	}
}

// ParsePlan relies on hujson blanking comments and trailing commas in
// place: same length, every newline where it was.
func TestHujsonKeepsOffsets(t *testing.T) {
	for _, doc := range []string{commentedPlan,
		"{\"a\": [1, [2, 3,], {\"b\": 4,},], /* ✓ multibyte\n   and two lines */ \"c\": 5,}\n// end ✗\n",
		"[\n1,\n2,\n]"} {
		std, err := hujson.Standardize([]byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if len(std) != len(doc) {
			t.Fatalf("%q: %d bytes became %d", doc, len(doc), len(std))
		}
		for i := range doc {
			if (doc[i] == '\n') != (std[i] == '\n') {
				t.Fatalf("%q: a newline moved at %d", doc, i)
			}
		}
	}
}

// Errors in a commented document name the line and column of the person's
// text: comments are blanked in place, not removed.
func TestParsePlanJSONCErrorsNameThePersonsLine(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		// After five lines of comments, the unknown field on line 7.
		{"unknown field", "// one\n// two\n/* three\n   four\n   five */\n{\"summary\": \"s\", /* x */\n  \"bogus\": 1,\n  \"features\": []}",
			[]string{"line 7, column 3", `"bogus"`}},
		{"type error", "{\n  // a comment\n  \"features\": [\n    {\"id\": 7}\n  ]\n}", []string{"line 4, column"}},
		// A syntax error after a comment: hujson's own position.
		{"syntax error", "{\n  // a comment\n  \"summary\": \"s\"\n  \"features\": []\n}", []string{"line 4, column 3"}},
		{"trailing data", "// c\n{\"features\": []}\n x", []string{"line 3, column 2"}},
		{"unterminated comment", "{\"features\": []} /* no end", []string{"line 1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.ParsePlan([]byte(tt.doc))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hujson") {
				t.Errorf("error %q names the library", err)
			}
		})
	}
}

func TestParsePlanEmptyDocuments(t *testing.T) {
	for _, doc := range []string{"", " \n", "// nothing\n", "/* nothing */ // still nothing\n\t", "// no newline at the end"} {
		if _, err := model.ParsePlan([]byte(doc)); !errors.Is(err, model.ErrEmptyPlan) {
			t.Errorf("%q: %v, want ErrEmptyPlan", doc, err)
		}
	}
}

// A bracket in a comment neither counts towards the nesting limit nor
// cancels one the parser recurses into.
func TestParsePlanNestingIgnoresComments(t *testing.T) {
	closers := "// " + strings.Repeat("]", 100) + "\n"
	deep := closers + `{"summary": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `, "features": []}`
	_, err := model.ParsePlan([]byte(deep))
	if err == nil || !strings.Contains(err.Error(), "nested deeper than") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("nesting hidden behind a comment: %v", err)
	}
	openers := "/* " + strings.Repeat("[{", 100) + " */\n" + `{"summary": "s", "features": [{"id": "a", "title": "A"}]}`
	if _, err := model.ParsePlan([]byte(openers)); err != nil {
		t.Fatalf("brackets in a comment counted: %v", err)
	}
}

func TestPlanDocumentRoundTrips(t *testing.T) {
	wt := true
	p := model.Plan{Summary: "s", Overview: "o", Requirements: []string{"r"}, Decisions: []string{"d"},
		Features: []model.Feature{
			{ID: "a", Title: "A", Summary: "first", Files: []string{"a.go"}, Verification: []string{"go test ./... && echo <ok>"}},
			{ID: "b", Title: "B", DependsOn: []string{"a"}, BlockedBy: []string{"a"}, Status: model.FeatureInProgress, Agent: "w1", Outcome: model.OutcomeBlocked},
		},
		Completion: model.Completion{MinCompletedFeatures: 1}, MaxParallel: 2, Worktrees: &wt}
	doc := model.PlanDocument(&p)
	for _, absent := range []string{"status", "agent", "outcome", `\u0026`} {
		if strings.Contains(string(doc), absent) {
			t.Errorf("the document holds %q:\n%s", absent, doc)
		}
	}
	back, err := model.ParsePlan(doc)
	if err != nil {
		t.Fatalf("%v in\n%s", err, doc)
	}
	want := p
	want.Features = []model.Feature{p.Features[0], {ID: "b", Title: "B", DependsOn: []string{"a"}, BlockedBy: []string{"a"}}}
	if !reflect.DeepEqual(*back, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", *back, want)
	}
}

func TestPlanEditable(t *testing.T) {
	if e, _ := model.AsError(model.PlanEditable(nil)); e == nil || e.Code != model.CodeNoActiveSession {
		t.Fatalf("no session: %v", e)
	}
	s := &model.Session{ID: "s", Status: model.StatusPlanning}
	if err := model.PlanEditable(s); err != nil {
		t.Fatal(err)
	}
	s.Execution.ActiveFeature = "a"
	if e, _ := model.AsError(model.PlanEditable(s)); e == nil || e.Code != model.CodePlanNotEditable {
		t.Fatalf("active feature: %v", e)
	}
	s = &model.Session{ID: "s", Status: model.StatusCompleted}
	if e, _ := model.AsError(model.PlanEditable(s)); e == nil || e.Code != model.CodeSessionCompleted {
		t.Fatalf("completed: %v", e)
	}
}
