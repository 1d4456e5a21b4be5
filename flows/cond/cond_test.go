package cond

import (
	"strings"
	"testing"
)

func TestConditions(t *testing.T) {
	vars := map[string]any{
		"role": "admin", "n": float64(3), "confirmed": true, "name": "John Smith",
		"tags": []any{"a", "b"}, "user": map[string]any{"role": "user", "age": float64(20)},
		"empty": "", "zero": float64(0),
	}
	for _, tc := range []struct {
		src  string
		want bool
		err  string
	}{
		{"role === 'admin'", true, ""},
		{`role !== "admin"`, false, ""},
		{"confirmed === true", true, ""},
		{"missing === true", false, ""},
		{"n > 2 && n <= 3", true, ""},
		{"n >= 4 || role == 'admin'", true, ""},
		{"!confirmed", false, ""},
		{"!missing", true, ""},
		{"!empty && !zero", true, ""},
		{"name.includes('John')", true, ""},
		{"tags.includes('b')", true, ""},
		{"tags.includes('z')", false, ""},
		{"user.role === 'user' && user.age > 18", true, ""},
		{"user.missing.deeper === undefined", true, ""},
		{"tags.length === 2", true, ""},
		{"name", true, ""},
		{"empty", false, ""},
		{"'a === b' === 'a === b'", true, ""},
		{"n === 3", true, ""},
		{"role === null", false, ""},
		{"n > 'a'", false, "invalid operation"},
		{"missing.includes('x')", false, "undefined"},
		{"nosuchfn(1)", false, ""},
	} {
		p, err := Compile(tc.src)
		if err != nil {
			if tc.err == "" || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: compile: %v", tc.src, err)
			}
			continue
		}
		got, err := p.Eval(vars)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one containing %q", tc.src, err, tc.err)
		case tc.err == "" && tc.src == "nosuchfn(1)":
			if err == nil {
				t.Errorf("%q: calling an unknown function evaluated without an error", tc.src)
			}
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.src, err)
		case err == nil && got != tc.want:
			t.Errorf("%q = %v, want %v", tc.src, got, tc.want)
		}
	}
	for _, bad := range []string{"", "n >", "(a"} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

func TestValueAndIdentifiers(t *testing.T) {
	v, err := Value("attempts + 1", map[string]any{"attempts": float64(2)})
	if err != nil || v != float64(3) {
		t.Fatalf("attempts + 1 = %v, %v", v, err)
	}
	v, err = Value("ok ? '' : 'refused: ' + error.message", map[string]any{"ok": false, "error": map[string]any{"message": "bad"}})
	if err != nil || v != "refused: bad" {
		t.Fatalf("ternary = %v, %v", v, err)
	}
	p, _ := Compile("confirmed === true && user.role === 'x'")
	if got := strings.Join(p.Identifiers(), ","); got != "confirmed,user" {
		t.Fatalf("identifiers %s", got)
	}
}

func TestVariablesNamedLikeBuiltins(t *testing.T) {
	v, err := Value("count * 2 + len(all)", map[string]any{"count": float64(3), "all": []any{1, 2}})
	if err != nil || v != float64(8) {
		t.Fatalf("%v %v", v, err)
	}
}
