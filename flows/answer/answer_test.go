package answer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/flows/flowfile"
)

var fields = []flowfile.Var{
	{Name: "name", Type: "string"}, {Name: "n", Type: "number"}, {Name: "ok", Type: "bool"},
	{Name: "tags", Type: "array"}, {Name: "kind", Type: "enum", Enum: []string{"app", "lib"}}, {Name: "any", Type: "json"},
}

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		out, err string
		want     map[string]any
	}{
		{out: "chatter {\"not\": \"this\"}\nfinal:\n```json\n{\"name\": \"x\", \"n\": \"3\", \"ok\": \"yes\", \"tags\": \"[1]\", \"kind\": \"App\", \"any\": null}\n```\n",
			want: map[string]any{"name": "x", "n": float64(3), "ok": true, "tags": []any{float64(1)}, "kind": "app", "any": nil}},
		{out: `{"name": 1, "n": 2, "ok": false, "tags": [], "kind": "lib", "any": {"a": {"b": 1}}} trailing text`,
			want: map[string]any{"name": "1", "n": float64(2), "ok": false, "tags": []any{}, "kind": "lib", "any": map[string]any{"a": map[string]any{"b": float64(1)}}}},
		{out: "no json at all", err: "no JSON object found"},
		{out: `{"name": [], "n": "many", "ok": 3, "tags": {}, "kind": "tool"}`,
			err: `"name": want a string, got an array; "n": want a number, got "many"; "ok": want true or false, got the number 3; "tags": want an array, got an object; "kind": want one of app, lib, got "tool"; "any" is missing (want json)`},
	} {
		got, err := Extract(tc.out, fields)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.out, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%q: %v %v", tc.out, got, err)
			continue
		}
		for k, v := range tc.want {
			if JSON(got[k]) != JSON(v) {
				t.Errorf("%q: %s = %v, want %v", tc.out, k, got[k], v)
			}
		}
	}
}

func TestFromText(t *testing.T) {
	for _, tc := range []struct {
		text, typ string
		want      string
	}{
		{"true", "json", "true"}, {"hello", "json", `"hello"`}, {`["a"]`, "array", `["a"]`},
		{"42", "number", "42"}, {"no", "bool", "false"}, {"my app", "string", `"my app"`},
	} {
		got, err := FromText(tc.text, flowfile.Var{Name: "v", Type: tc.typ})
		if err != nil || JSON(got) != tc.want {
			t.Errorf("FromText(%q, %s) = %v, %v; want %s", tc.text, tc.typ, got, err, tc.want)
		}
	}
}

// JSON encodes v so that tests compare values, not Go types.
func JSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
