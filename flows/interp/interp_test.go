package interp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var vars = map[string]any{
	"name":  "Alice",
	"count": float64(42),
	"ok":    true,
	"user":  map[string]any{"email": "a@example.com", "tags": []any{"x", "y"}},
	"items": []any{"apple", "pear"},
	"none":  nil,
}

// shellSh interpolates for sh, the default dialect of an exec block.
func shellSh(src string, vars map[string]any) (string, error) { return Code(src, "sh", vars) }

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Hello, **$name**!", "Hello, **Alice**!"},
		{"Count: $count", "Count: 42"},
		{"User: $user.email", "User: a@example.com"},
		{"First item: $items.0", "First item: apple"},
		{"second $items.1, none $items.2", "second pear, none [\"apple\",\"pear\"].2"},
		{"tags $user.tags", `tags ["x","y"]`},
		{"file $name.txt.", "file Alice.txt."},
		{"cost \\$name and \\$5", "cost $name and $5"},
		{"unknown $HOME stays", "unknown $HOME stays"},
		{"ends with $", "ends with $"},
		{"$ok/$none", "true/null"},
		{"all: $$", `all: {"count":42,"items":["apple","pear"],"name":"Alice","none":null,"ok":true,"user":{"email":"a@example.com","tags":["x","y"]}}`},
		{"$$name", `{"count":42,"items":["apple","pear"],"name":"Alice","none":null,"ok":true,"user":{"email":"a@example.com","tags":["x","y"]}}name`},
		{"no dollar", "no dollar"},
	} {
		if got := Text(tc.in, vars); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShellTable(t *testing.T) {
	v := map[string]any{"name": "my proj", "n": float64(3), "q": "it's", "empty": ""}
	for _, tc := range []struct{ in, want string }{
		{`mkdir -p "$name"`, `mkdir -p "my proj"`},
		{`echo $name`, `echo 'my proj'`},
		{`echo '$q'`, `echo 'it'\''s'`},
		{`echo $n $((n+1)) $((` + "$n" + `+1))`, `echo 3 $((n+1)) $((3+1))`},
		{`echo "$HOME/$name"`, `echo "$HOME/my proj"`},
		{`echo $empty.`, `echo ''.`},
		{"# don't $name\necho $name", "# don't $name\necho 'my proj'"},
		{`echo "$(basename $name)"`, `echo "$(basename 'my proj')"`},
		{"cat <<EOF\n$name \"x\"\nEOF\necho $name", "cat <<EOF\nmy proj \"x\"\nEOF\necho 'my proj'"},
		{`echo \$name`, `echo $name`},
	} {
		got, err := shellSh(tc.in, v)
		if err != nil || got != tc.want {
			t.Errorf("shellSh(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if got, err := Code(`echo $'a\'$q'`, "bash", v); got != `echo $'a\'it\x27s'` {
		t.Errorf("bash $'...' = %q, %v", got, err)
	}
	if _, err := shellSh(`echo $'a\'$q'`, v); err == nil {
		t.Error("sh accepted $'...', which dash reads as $ and '...'")
	}
	if _, err := shellSh("cat <<EOF\n$name\nEOF", map[string]any{"name": "a\nEOF\nrm -rf x"}); err == nil {
		t.Error("a value that ends a heredoc was accepted")
	}
}

// hostile values: every one must come out of the interpreter byte for byte,
// and none may run anything.
var hostile = []string{
	`plain`,
	`it's "quoted"`,
	`$(touch PWNED)`,
	"`touch PWNED`",
	"line1\nline2\n; touch PWNED",
	`'; touch PWNED; echo '`,
	`"; touch PWNED; echo "`,
	`\'; touch PWNED #`,
	`${IFS}touch${IFS}PWNED`,
	`#{system("touch PWNED")}`,
	`@{[system("touch PWNED")]}`,
	`{__import__('os').system('touch PWNED')}`,
	"\\",
	"tab\there $HOME ~ * ?",
	"unicode ✓ \u2028 end",
}

// scripts print the value of $v once per quoting context, NUL-separated.
var scripts = map[string]struct {
	dialect string
	argv    []string
	code    string
	n       int
}{
	"sh": {"sh", []string{"sh", "-c"}, "printf '%s\\0' $v \"$v\" '$v' \"$(printf '%s' $v)\"\n" +
		"cat <<EOF\n$v\nEOF\nprintf '\\0'\ncat <<'EOF'\n$v\nEOF\nprintf '\\0'\n# a comment that mentions $v and don't\n", 6},
	"bash":   {"bash", []string{"bash", "-c"}, "x=`printf '%s' $v`; printf '%s\\0' \"$x\" $'$v'", 2},
	"python": {"python", []string{"python3", "-c"}, "import sys\nvals = [$v, \"$v\", '$v', \"\"\"$v\"\"\", f\"{1}$v\"[1:], b\"$v\".decode()]  # $v in a comment\nsys.stdout.write(\"\".join(x + \"\\0\" for x in vals))", 6},
	"node":   {"node", []string{"node", "-e"}, "const vals = [$v, \"$v\", '$v', `$v`]; // $v\n/* $v */ process.stdout.write(vals.map(x => x + '\\0').join(''))", 4},
	"perl":   {"perl", []string{"perl", "-e"}, "my @vals = ($v, \"$v\", '$v'); # $v\nprint join('', map { $_ . \"\\0\" } @vals);", 3},
	"ruby":   {"ruby", []string{"ruby", "-e"}, "vals = [$v, \"$v\", '$v'] # $v\nprint vals.map { |x| x + \"\\0\" }.join", 3},
}

func TestInjectionThroughRealInterpreters(t *testing.T) {
	for name, sc := range scripts {
		if _, err := exec.LookPath(sc.argv[0]); err != nil {
			t.Logf("%s not installed; skipped", sc.argv[0])
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, val := range hostile {
				dir := t.TempDir()
				code, err := Code(sc.code, sc.dialect, map[string]any{"v": val})
				if err != nil {
					t.Fatalf("%q: %v", val, err)
				}
				cmd := exec.Command(sc.argv[0], append(sc.argv[1:], code)...)
				cmd.Dir = dir
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%q: %v\ncode:\n%s", val, err, code)
				}
				if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
					t.Fatalf("%q ran a command:\n%s", val, code)
				}
				got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
				if len(got) != sc.n {
					t.Fatalf("%q: %d values, want %d: %q\ncode:\n%s", val, len(got), sc.n, out, code)
				}
				for i, g := range got {
					want := val
					if name == "sh" && i == 3 {
						want = strings.TrimRight(val, "\n") // $(...) drops trailing newlines
					}
					if name == "sh" && i >= 4 {
						g = strings.TrimPrefix(strings.TrimSuffix(g, "\n"), "\n") // heredocs end with a newline
					}
					if g != want {
						t.Errorf("%q: context %d gave %q\ncode:\n%s", val, i, g, code)
					}
				}
			}
		})
	}
}

func TestScriptLiterals(t *testing.T) {
	v := map[string]any{"m": map[string]any{"a": []any{true, nil, float64(1.5)}}}
	for _, tc := range []struct{ dialect, in, want string }{
		{"python", "x = $m", `x = {"a": [True, None, 1.5]}`},
		{"ruby", "x = $m", `x = {"a" => [true, nil, 1.5]}`},
		{"perl", "my $x = $m;", `my $x = {'a' => [1, undef, 1.5]};`},
		{"node", "x = $m", `x = {"a":[true,null,1.5]}`},
	} {
		got, err := Code(tc.in, tc.dialect, v)
		if err != nil || got != tc.want {
			t.Errorf("%s %q = %q, %v; want %q", tc.dialect, tc.in, got, err, tc.want)
		}
	}
	if _, err := Code(`r"$v"`, "python", map[string]any{"v": `a"b`}); err == nil {
		t.Error("a quote was inserted into a python raw string")
	}
}
