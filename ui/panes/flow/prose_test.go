package flow

import "testing"

func TestProse(t *testing.T) {
	cases := map[string]string{
		"plain text":                            "plain text",
		"<!-- for the agent -->Pick **one**:":   "Pick one:",
		"## Publish\n\nRun `make release`.":     "Publish\n\nRun make release.",
		"See [the docs](../index.md) first.":    "See the docs first.",
		"See [site](https://x.dev/a).":          "See site (https://x.dev/a).",
		"```json\n{\"a\": 1}\n```\n":            "a: 1",
		"a <!--\nmulti\nline\n--> b":            "a  b",
		"keep 2*3*4 and snake_case_names as-is": "keep 2*3*4 and snake_case_names as-is",
	}
	for in, want := range cases {
		if got := Prose(in); got != want {
			t.Errorf("Prose(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzProse(f *testing.F) {
	for _, s := range []string{"**a**", "<!-- x", "[a](b", "```", "# h\n`c`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = Prose(s) // must not panic on hostile prompts
	})
}
