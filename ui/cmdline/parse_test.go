package cmdline

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	c, err := Parse("  flow-plan   Add  dark mode ")
	if err != nil || c.Name != "/flow-plan" || c.Rest != "Add  dark mode" {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := Parse("/flow-pla x"); err == nil || err.Error() != "unknown command /flow-pla: did you mean /flow-plan?" {
		t.Fatalf("err = %v", err)
	}
	if _, err := Parse(""); err == nil {
		t.Fatal("empty line parsed")
	}
}

func TestComplete(t *testing.T) {
	ids := []string{"reset-api", "reset-ui", "mailer"}
	cases := map[string][]string{
		"":                      nil, // every name; checked by length below
		"/flow-s":               {"/flow-show ", "/flow-status ", "/flow-session "},
		"flow-h":                {"/flow-history "},
		"/flow-run m":           {"/flow-run mailer "},
		"/flow-run ":            {"/flow-run reset-api ", "/flow-run reset-ui ", "/flow-run mailer "},
		"/flow-reset s":         {"/flow-reset session "},
		"/flow-reset feature":   {"/flow-reset feature "},
		"/flow-reset feature r": {"/flow-reset feature reset-api ", "/flow-reset feature reset-ui "},
		"/flow-session 2026":    {"/flow-session 20260314-a "},
		"/flow-note x":          nil,
		"/flow p":               {"/flow plan "},
		"/flow ":                {"/flow auto ", "/flow plan ", "/flow run "},
		"/flow-show d":          {"/flow-show demo-2 ", "/flow-show demo-1 "},
		"/flow-a":               {"/flow-auto ", "/flow-approve ", "/flow-apply "},
	}
	for in, want := range cases {
		got := Complete(in, Pools{Features: ids, Sessions: []string{"20260314-a"},
			Flows: []string{"auto", "plan", "run"}, FlowRuns: []string{"demo-2", "demo-1"}})
		if in == "" {
			if len(got) != len(Specs) {
				t.Errorf("%q: %d completions, want every command", in, len(got))
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
	if p := commonPrefix([]string{"/flow-run ", "/flow-reset "}); p != "/flow-r" {
		t.Fatalf("common prefix %q", p)
	}
}
