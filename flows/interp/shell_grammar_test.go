package interp

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A sink prints the flow variable $v to stdout from one quoting context.
type sink struct {
	code          string
	pre, post     string // printed around the value
	bash          bool   // bash-only syntax
	noBackticks   bool   // a heredoc: not nested in `...`
	quotedHeredoc bool   // bash drops \x01 from one inside $( ): refused there
	refuses       func(v string) bool
	trimNewlines  bool // $( ) drops the value's trailing newlines
}

// heredocPrefix is the sink's text before $v on its line.
func (sk sink) heredocPrefix() string {
	i := strings.Index(sk.code, "$v")
	return sk.code[strings.LastIndexByte(sk.code[:i], '\n')+1 : i]
}

func refusesHeredoc(v string) bool {
	for _, l := range strings.Split(v, "\n") {
		if l == "EOF" {
			return true
		}
	}
	return false
}

func refusesDashHeredoc(v string) bool {
	for _, l := range strings.Split(v, "\n") {
		if strings.TrimLeft(l, "\t") == "EOF" || strings.HasPrefix(l, "\t") {
			return true
		}
	}
	return false
}

func refusesNonInteger(v string) bool { return !integer().MatchString(v) }

var sinks = []sink{
	{code: `printf '%s' $v`},
	{code: `printf '%s' "$v"`},
	{code: `printf '%s' '$v'`},
	{code: `printf '%s' "it's $v"`, pre: "it's "},
	{code: `printf '%s' x'$v'"y"`, pre: "x", post: "y"},
	{code: `printf '%s' $'$v'`, bash: true},
	{code: "cat <<EOF\n$v\nEOF", post: "\n", noBackticks: true, refuses: refusesHeredoc},
	{code: "cat <<'EOF'\n$v\nEOF", quotedHeredoc: true, post: "\n", noBackticks: true, refuses: refusesHeredoc},
	{code: "cat <<\"EOF\"\n\"$v\"\nEOF", quotedHeredoc: true, pre: `"`, post: "\"\n", noBackticks: true, refuses: refusesHeredoc},
	{code: "cat <<\\EOF\n$v\nEOF", quotedHeredoc: true, post: "\n", noBackticks: true, refuses: refusesHeredoc},
	{code: "cat <<-EOF\n\t$v\n\tEOF", post: "\n", noBackticks: true, refuses: refusesDashHeredoc},
	{code: "cat <<-'EOF'\n\t$v\n\tEOF", quotedHeredoc: true, post: "\n", noBackticks: true, refuses: refusesDashHeredoc},
	{code: "cat <<EOF\n'$v' \"${u:-x}\"\nEOF", pre: "'", post: "' \"x\"\n", noBackticks: true, refuses: refusesHeredoc},
	{code: "cat <<EOF\n$(( $v ))\nEOF", post: "\n", noBackticks: true, refuses: refusesNonInteger},
	{code: "cat <<EOF\n$(printf '%s' $v)\nEOF", post: "\n", noBackticks: true, refuses: refusesHeredoc, trimNewlines: true},
	{code: `case $v in $v) printf '%s' "$v";; *) echo MISMATCH;; esac`},
	{code: `case "$v" in "$v") printf '%s' $v;; esac`},
	{code: `[[ $v == $v ]] && printf '%s' "$v"`, bash: true},
	{code: `printf '%s' "${unset_x:-$v}"`, refuses: func(v string) bool { return strings.Contains(v, "'") }},
	{code: `printf '%s' ${unset_x:-$v}`},
	{code: `y=$v$v; printf '%s' "${y#$v}"`, refuses: func(string) bool { return true }},
	{code: `y="$v"; printf '%s' "$y"`},
	{code: `y=$v; printf '%s' "$y"`},
	{code: `f() { printf '%s' "$1"; }; f $v`},
	{code: `printf '%s' "$(printf '%s' $v)"`, trimNewlines: true},
	{code: "printf '%s' \"`printf '%s' $v`\"", trimNewlines: true},
	{code: `xs="$v"'$v'$v; [ "$xs" = "$v$v$v" ] && printf '%s' "$v"`},
	{code: `n2=$v; : $(( n2 + 0 )); printf '%s' "$n2"`, refuses: refusesNonInteger},
	{code: "n3=$v\n[[ $n3 -ge 0 || $n3 -lt 0 ]] && printf '%s' \"$n3\"", bash: true, refuses: refusesNonInteger},
	{code: `printf '%s' $v # $v's comment`},
	{code: `: ${u1:=$v}; printf '%s' "$u1"`},
	{code: `if [ "$v" = "$v" ]; then printf '%s' "$v"; fi`},
	{code: `W=$v; export W; sh -c 'printf "%s" "$W"'`},
	{code: `r=$(case a in a) printf '%s' $v;; esac); printf '%s' "$r"`, trimNewlines: true},
	{code: `cat <<<$v`, bash: true, post: "\n"},
	{code: `cat <<< "$v"`, bash: true, post: "\n"},
	{code: `cat <(printf '%s' $v)`, bash: true},
	{code: `declare -i n=$v; printf '%s' "$n"`, bash: true, refuses: refusesNonInteger},
	{code: `printf '%s' $[ $v ]`, bash: true, refuses: refusesNonInteger},
	{code: "f() { n=$v; printf '%s' \"$n\"; }\ndeclare -i n\nf", bash: true, refuses: refusesNonInteger},
	{code: `for (( i=$v; i<=$v; i++ )); do printf '%s' $i; done`, bash: true, refuses: refusesNonInteger},
	{code: `[[ -v $v ]]; printf '%s' $v`, bash: true, refuses: func(v string) bool { return !identifier().MatchString(v) }},
	{code: `printf '%s' $(( $v ))`, refuses: refusesNonInteger},
	{code: `(( n = $v )); printf '%s' "$n"`, bash: true, refuses: refusesNonInteger},
	{code: `let "n = $v"; printf '%s' $n`, bash: true, refuses: refusesNonInteger},
	{code: `[[ $v -eq $v ]] && printf '%s' $v`, bash: true, refuses: refusesNonInteger},
	{code: `a=(x y); if [[ $v == -* ]]; then printf '%s' $v; else a[$v]=$v; printf '%s' "${a[$v]}"; fi`, bash: true, refuses: refusesNonInteger},
}

// noise: statements that fooled the hand-made tracker (an arithmetic shift
// read as a heredoc, quotes in comments), printing nothing.
var noise = []struct {
	code string
	bash bool
}{
	{code: "flags=$(( 1 << 3 ))"},
	{code: ": $(( 2 << 1 )) $((1<<2))"},
	{code: "x=1; (( x <<= 1 ))", bash: true},
	{code: "let 'y = 1 << 2'", bash: true},
	{code: "let yl=1\\<\\<2", bash: true},
	{code: "for (( i = 0; i < 1; i++ )); do :; done", bash: true},
	{code: "# a comment with ' and \" and $v and <<EOF"},
	{code: "cat >/dev/null <<'X'\n' \" $(nope) <<EOF `\nX"},
	{code: "cat >/dev/null <<X\n' \" <<EOF $((1<<2))\nX"},
	{code: ": '<<EOF' \"<<EOF\" \\<\\<EOF"},
	{code: "z=$(echo \"$( echo ')' )\")"},
	{code: "case a in a) : ;; (b) : ;; esac"},
	{code: ": \"${q:-<<EOF}\" ${q:-'\"'}"},
	{code: "x=`echo '<<'`"},
	{code: ": $'\\'<<EOF'", bash: true},
	{code: ": $(( 1 )) # ) ( \" ' <<EOF"},
	{code: "case x in (x) : ;; esac; : ${#PATH}"},
	{code: ": <<-'X'\n\t$w ' \"\n\tX"},
}

// wrappers nest a statement S that prints, keeping what it prints.
var wrappers = []struct {
	code      string // S marks the statement
	backticks bool
}{
	// S ends its line: a heredoc's delimiter must stand alone
	{code: "( S\n)"},
	{code: "{ S\n}"},
	{code: "if true; then S\nfi"},
	{code: "g() { S\n}; g"},
	{code: "{ S\n} | cat"},
	// newline, not ;, after S: bash 5.2 drops a ; after a heredoc in $( )
	{code: "r=$( S\nprintf . ); printf '%s' \"${r%.}\""},
	{code: "r=\"$( S\nprintf . )\"; printf '%s' \"${r%.}\""},
	{code: "r=`S\nprintf .`; printf '%s' \"${r%.}\"", backticks: true},
	{code: "while :; do S\nbreak; done"},
}

type genScript struct {
	code       string
	want       string
	bash       bool
	refuseable bool // the value may be refused (an integer or heredoc place)
}

func generate(seed uint64, v string) genScript {
	r := rand.New(rand.NewPCG(seed, seed>>32|1))
	sk := sinks[r.IntN(len(sinks))]
	g := genScript{bash: sk.bash}
	stmt := sk.code
	inSubst := false
	backticks := strings.Count(sk.code, "`") / 2 // the sink's own
	for range r.IntN(4) {
		w := wrappers[r.IntN(len(wrappers))]
		if w.backticks && sk.noBackticks {
			continue
		}
		if w.backticks {
			backticks++
			// Inside `...` the shell drops one level of \ before ` and \.
			stmt = strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(stmt)
		}
		stmt = strings.Replace(w.code, "S", stmt, 1)
		inSubst = inSubst || strings.Contains(w.code, "$(") || w.backticks
	}
	var lines []string
	for range r.IntN(5) {
		n := noise[r.IntN(len(noise))]
		g.bash = g.bash || n.bash
		lines = append(lines, n.code)
	}
	at := r.IntN(len(lines) + 1)
	lines = append(lines[:at], append([]string{stmt}, lines[at:]...)...)
	g.code = strings.Join(lines, "\n") + "\n"
	val := v
	if sk.trimNewlines {
		val = strings.TrimRight(v, "\n")
	}
	g.want = sk.pre + val + sk.post
	g.refuseable = sk.refuses != nil && sk.refuses(v) || backticks > 1 ||
		inSubst && sk.quotedHeredoc && strings.ContainsRune(v, 1) ||
		!g.bash && sk.noBackticks && dashDrops(sk.heredocPrefix(), v, "EOF", strings.Contains(sk.code, "<<-"))
	return g
}

// runGenerated interpolates and runs one generated script in bash (and sh
// when it is POSIX) and asserts the value arrived byte for byte and that
// nothing else happened (no file appeared in the working directory).
func runGenerated(t *testing.T, seed uint64, v string) {
	if strings.ContainsRune(v, 0) {
		return // no shell can hold a NUL in a variable or argument
	}
	g := generate(seed, v)
	dialect := "sh"
	if g.bash {
		dialect = "bash"
	}
	code, err := Code(g.code, dialect, map[string]any{"v": v})
	if err != nil {
		if !g.refuseable {
			t.Fatalf("seed %d value %q refused: %v\nscript:\n%s", seed, v, err, g.code)
		}
		return
	}
	if g.refuseable {
		t.Fatalf("seed %d value %q should have been refused:\n%s", seed, v, code)
	}
	shells := []string{"bash", "sh"}
	if g.bash {
		shells = shells[:1]
	}
	for _, sh := range shells {
		dir := t.TempDir()
		cmd := exec.Command(sh, "-c", code)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: seed %d value %q: %v\nscript:\n%s", sh, seed, v, err, code)
		}
		if string(out) != g.want {
			t.Fatalf("%s: seed %d value %q arrived as %q\nscript:\n%s", sh, seed, v, out, code)
		}
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			t.Fatalf("%s: seed %d value %q created %s\nscript:\n%s", sh, seed, v, filepath.Join(dir, ents[0].Name()), code)
		}
	}
}

func needShells(t testing.TB) {
	for _, sh := range []string{"bash", "sh"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Skipf("%s is not installed; the shell interpolation tests need it", sh)
		}
	}
}

var hostileShell = append([]string{
	"", "42", "-7", "007", "EOF", "a\nEOF\nb", "\tEOF", "x\n\ty", "\ttab",
	`bob"; touch PWNED; echo "`, "$((1<<3))", "a[$(touch PWNED)]", `\`, `\\'`, "\n\n",
	"*", "?(x)", "[a]", "~", "{a,b}", "a b  c", "-n", "&& touch PWNED", "\r\x1b[31m", "\xff\xfe", "E\xfe", "EOF\xc3\xa9", "\x01\x01", "✓ ok",
}, hostile...)

// TestShellEveryContext runs every sink with every hostile value, once,
// unwrapped, in bash and (for POSIX sinks) sh.
func TestShellEveryContext(t *testing.T) {
	needShells(t)
	for i := range sinks {
		for _, v := range hostileShell {
			runSink(t, sinks[i], v)
		}
	}
}

func runSink(t *testing.T, sk sink, v string) {
	t.Helper()
	dialect := "sh"
	if sk.bash {
		dialect = "bash"
	}
	code, err := Code(sk.code, dialect, map[string]any{"v": v})
	refuse := sk.refuses != nil && sk.refuses(v) || !sk.bash && sk.noBackticks && dashDrops(sk.heredocPrefix(), v, "EOF", strings.Contains(sk.code, "<<-"))
	if (err != nil) != refuse {
		t.Fatalf("%q with %q: err %v, refuse %v", sk.code, v, err, refuse)
	}
	if err != nil {
		return
	}
	want := v
	if sk.trimNewlines {
		want = strings.TrimRight(v, "\n")
	}
	want = sk.pre + want + sk.post
	for _, sh := range []string{"bash", "sh"} {
		if sh == "sh" && sk.bash {
			continue
		}
		dir := t.TempDir()
		cmd := exec.Command(sh, "-c", code)
		cmd.Dir = dir
		out, err := cmd.Output()
		ents, _ := os.ReadDir(dir)
		if err != nil || string(out) != want || len(ents) > 0 {
			t.Fatalf("%s: %q with %q: got %q (%v), %d files\ncode:\n%s", sh, sk.code, v, out, err, len(ents), code)
		}
	}
}

// FuzzShellContexts generates scripts from the grammar above (sinks,
// wrappers, noise) and checks a value always arrives as data.
func FuzzShellContexts(f *testing.F) {
	needShells(f)
	for i, v := range hostileShell {
		f.Add(uint64(i*7919+1), v)
	}
	f.Fuzz(runGenerated)
}

func TestShellIssueArithmeticShift(t *testing.T) {
	needShells(t)
	for _, code := range []string{
		"flags=$(( 1 << 3 ))\necho \"flags=$flags user=$name\"",
		"x=1; (( x <<= 1 ))\necho \"flags=$x user=$name\"",
	} {
		dir := t.TempDir()
		canary := filepath.Join(dir, "x")
		name := `bob"; touch ` + canary + `; echo "`
		out, err := Code(code, "bash", map[string]any{"name": name})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(code, "(( x") {
			// dash reads "(( x <<= 1 ))" as a heredoc: an sh block is refused
			if _, err := shellSh(code, map[string]any{"name": name}); err == nil {
				t.Errorf("sh accepted %q", code)
			}
		} else if sh, err := shellSh(code, map[string]any{"name": name}); err != nil || sh != out {
			t.Errorf("sh: %q, %v", sh, err)
		}
		got, err := exec.Command("bash", "-c", out).Output()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if _, err := os.Stat(canary); err == nil {
			t.Fatalf("the value ran:\n%s", out)
		}
		if !strings.HasSuffix(string(got), "user="+name+"\n") {
			t.Fatalf("got %q", got)
		}
	}
}

func TestShellSyntaxErrorNamesLine(t *testing.T) {
	_, err := shellSh("echo ok\necho $v\nif then fi (", map[string]any{"v": "x"})
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("err = %v", err)
	}
	if err := CheckShell("echo \"unclosed", "sh"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("CheckShell err = %v", err)
	}
}

// zsh and ksh blocks are read by their own grammar.
func TestShellDialects(t *testing.T) {
	v := map[string]any{"v": `it's "x"`, "n": float64(2)}
	for _, tc := range []struct{ dialect, in, want string }{
		{"zsh", `print -r -- $v "$v" ${(U)v}`, `print -r -- 'it'\''s "x"' "it's \"x\"" ${(U)v}`},
		{"ksh", `print -r -- $v "$(( $n + 1 ))"`, `print -r -- 'it'\''s "x"' "$(( 2 + 1 ))"`},
		{"bash", `echo $'$v'`, `echo $'it\x27s "x"'`},
	} {
		got, err := Code(tc.in, tc.dialect, v)
		if err != nil || got != tc.want {
			t.Errorf("%s %q = %q, %v; want %q", tc.dialect, tc.in, got, err, tc.want)
		}
	}
	if _, err := Code(`print ${(U)v} $v`, "sh", v); err == nil {
		t.Error("sh accepted zsh syntax")
	}
	for _, refused := range []string{"cat <<'$v'\nx\n$v\n", `[[ -v '$v' ]]`, `[[ -v "$v" ]]`, `(( '$v' ))`} {
		if out, err := Code(refused, "bash", v); err == nil {
			t.Errorf("%q placed: %q", refused, out)
		}
	}
}
