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
		{"nosuchfn(1)", false, "function nosuchfn() cannot be evaluated"},
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

// The JavaScript string and array methods literate-commands conditions
// use, with JavaScript's results.
func TestJavaScriptMethods(t *testing.T) {
	vars := map[string]any{
		"file": "Report.MD", "answer": "  Yes \n", "tags": []any{"a", "b", float64(3), nil},
		"name": "héllo wörld", "n": float64(5), "empty": []any{},
	}
	for _, tc := range []struct {
		src  string
		want any
	}{
		{"file.endsWith('.MD')", true},
		{"file.toLowerCase().endsWith('.md')", true},
		{"file.startsWith('Rep')", true},
		{"file.startsWith('rep')", false},
		{"file.toUpperCase()", "REPORT.MD"},
		{"answer.trim()", "Yes"},
		{"answer.trim().toLowerCase() === 'yes'", true},
		{"name.indexOf('wörld')", float64(6)},
		{"name.indexOf('x')", float64(-1)},
		{"tags.indexOf('b')", float64(1)},
		{"tags.indexOf(3)", float64(2)},
		{"tags.join('-')", "a-b-3-"},
		{"tags.join()", "a,b,3,"},
		{"empty.join()", ""},
		{"tags.includes(3)", true},
		{"name.includes('wö')", true},
		{"name.length", float64(11)},
		{"tags.length > 3 && file.trim().length === 9", true},
		{"'abc'.startsWith('a')", true},
		{"upper(trim(answer))", "YES"}, // expr-lang builtins still work
	} {
		got, err := Value(tc.src, vars)
		if err != nil || got != tc.want {
			t.Errorf("%s = %#v, %v; want %#v", tc.src, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ src, err string }{
		{"missing.endsWith('x')", "cannot call endsWith on an undefined value"},
		{"n.startsWith('5')", "startsWith: needs a string, not a number"},
		{"file.join(',')", "join: needs an array"},
	} {
		if _, err := Value(tc.src, vars); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.err)
		}
	}
}

// A method without a translation is refused when the condition compiles
// (flows check), not when the flow reaches it.
func TestUnknownMethodsRefusedAtCompile(t *testing.T) {
	for _, tc := range []struct{ src, err string }{
		{"name.padStart(3) === 'x'", "method .padStart() cannot be evaluated"},
		{"name.trim().replaceAll('a', 'b')", "method .replaceAll() cannot be evaluated"},
		{"name.trim(1)", "method .trim() takes no arguments, got 1"},
		{"name.startsWith()", "method .startsWith() takes one argument, got 0"},
		{"tags.join(1, 2)", "method .join() takes 0 to 1 arguments, got 2"},
	} {
		if _, err := Compile(tc.src); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: compile error %v, want %q", tc.src, err, tc.err)
		}
	}
}

// FuzzCondition: a condition from a hostile flow file compiles or is
// refused, and evaluates or errs, without a panic.
func FuzzCondition(f *testing.F) {
	for _, s := range []string{"a === 'x'", "a.trim().toLowerCase()", "__method('trim')", "__method(1, 2)", "x.join(1,2)", "a.b.c.length", "!a || b.includes(c)", "tags.indexOf(null)"} {
		f.Add(s)
	}
	vars := map[string]any{"a": " X ", "b": []any{"c", nil}, "c": "c", "tags": []any{float64(1)}, "x": map[string]any{}}
	f.Fuzz(func(t *testing.T, src string) {
		if p, err := Compile(src); err == nil {
			p.Eval(vars)
		}
	})
}
