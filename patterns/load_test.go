package patterns

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const widgetTOML = `# two patterns in one file
[[pattern]]
name = "mytool"
command_match = '^mytool\b'

[pattern.success]
pattern = '(?P<n>\d+) widgets built in (?P<secs>[\d.]+)s'
summary = '{n} widgets built ({secs}s)'

[pattern.failure]
strategy = "grep"
grep = 'ERROR'

[[pattern]]
name = "lister"
command_match = '^lister\b'
category = "data"
`

func TestLoadUserPatterns(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "widgets.toml", widgetTOML)
	writeFile(t, dir, "notes.txt", "not a pattern file")
	set, errs := Load(dir, filepath.Join(dir, "missing"))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	list := set.List()
	if len(list) != 2+len(builtinPatterns()) {
		t.Fatalf("%d patterns", len(list))
	}
	if list[0] != (Info{Name: "mytool", Source: path, CommandMatch: `^mytool\b`}) ||
		list[1] != (Info{Name: "lister", Source: path, CommandMatch: `^lister\b`, Category: Data}) ||
		list[2].Source != SourceBuiltin {
		t.Errorf("List() = %+v", list[:3])
	}

	out := strings.Repeat("working...\n", 500) + "42 widgets built in 1.5s\n"
	r := runOpts(set, []string{"mytool", "--all"}, out, 0, Options{})
	if r.Class != Success || r.Summary != "42 widgets built (1.5s)" || r.Pattern != "mytool" || r.Source != path {
		t.Errorf("%s %q %q %q", r.Class, r.Summary, r.Pattern, r.Source)
	}
	if !reflect.DeepEqual(r.Counts, map[string]int{"n": 42}) {
		t.Errorf("counts %v", r.Counts)
	}
	// The last matching line wins.
	r = runOpts(set, []string{"mytool"}, "1 widgets built in 1s\n3 widgets built in 2s\n", 0, Options{})
	if r.Summary != "3 widgets built (2s)" {
		t.Errorf("%q", r.Summary)
	}
	// The failure filter applies.
	r = runOpts(set, []string{"mytool"}, "ok\nERROR one\nok\nERROR two\n", 2, Options{})
	if r.Class != Failure || r.Detail != "ERROR one\nERROR two\n" || r.Summary != "exit status 2" {
		t.Errorf("%s %q %q", r.Class, r.Detail, r.Summary)
	}
	// A pattern's category decides large unsummarised output.
	if r := runOpts(set, []string{"lister"}, numbered(1000), 0, Options{}); r.Class != Indexed || r.Category != Data {
		t.Errorf("lister: %s %s", r.Class, r.Category)
	}
}

// oo's shape: one pattern per file at the top level.
func TestLoadSingleFileShape(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deploy.toml", `
command_match = '^deploy\b'
category = "status"
[success]
pattern = 'deployed (?P<version>v[\d.]+)'
summary = 'deployed {version}'
[failure]
strategy = "tail"
lines = 2
`)
	set, errs := Load(dir)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if set.List()[0].Name != "deploy" {
		t.Errorf("name %q", set.List()[0].Name)
	}
	if r := runOpts(set, []string{"deploy"}, numbered(600)+"deployed v1.2.3\n", 0, Options{}); r.Summary != "deployed v1.2.3" || r.Counts == nil {
		t.Errorf("%q %v", r.Summary, r.Counts)
	}
	if r := runOpts(set, []string{"deploy"}, numbered(5), 1, Options{}); r.Detail != "... [3 lines truncated] ...\nline 4\nline 5\n" {
		t.Errorf("tail 2: %q", r.Detail)
	}
	// Without a summary match, the category (status) makes it quiet.
	if r := runOpts(set, []string{"deploy"}, numbered(600), 0, Options{}); r.Class != Quiet {
		t.Errorf("%s", r.Class)
	}
}

// Project patterns beat user patterns, which beat built-ins.
func TestLoadPrecedence(t *testing.T) {
	root := t.TempDir()
	project, user := filepath.Join(root, "project"), filepath.Join(root, "user")
	pp := writeFile(t, project, "gotest.toml", `
[[pattern]]
name = "project go test"
command_match = '^go test\b'
[pattern.success]
pattern = 'ok'
summary = 'project says ok'
`)
	up := writeFile(t, user, "gotest.toml", `
[[pattern]]
name = "user go test"
command_match = '^go test\b'
[[pattern]]
name = "user cargo"
command_match = '^cargo test\b'
`)
	set, errs := Load(project, user)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	info, _ := set.Match([]string{"go", "test", "./..."})
	if info.Name != "project go test" || info.Source != pp {
		t.Errorf("go test -> %+v", info)
	}
	info, _ = set.Match([]string{"cargo", "test"})
	if info.Name != "user cargo" || info.Source != up {
		t.Errorf("cargo test -> %+v", info)
	}
	info, _ = set.Match([]string{"pytest"})
	if info.Name != "pytest" || info.Source != SourceBuiltin {
		t.Errorf("pytest -> %+v", info)
	}
	names := []string{}
	for _, i := range set.List()[:3] {
		names = append(names, i.Name)
	}
	if !reflect.DeepEqual(names, []string{"project go test", "user go test", "user cargo"}) {
		t.Errorf("order %v", names)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		line       int
		msg        string
	}{
		{"syntax.toml", "[[pattern]]\nname = \"x\"\ncommand_match = '^x\n", 3, ""},
		{"badregex.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n\n[[pattern]]\nname = \"b\"\ncommand_match = '^b('\n", 7, "^b("},
		{"badsuccess.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n[pattern.success]\npattern = '(?P<n>\\d+'\nsummary = '{n}'\n", 5, "(?P<n>"},
		{"unknownkey.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n[pattern.success]\npatern = 'x'\nsummary = 'y'\n", 5, `unknown key "pattern.success.patern"`},
		{"unknowntable.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n\n[pattern.sucess]\npattern = 'x'\n", 5, `unknown key "pattern.sucess"`},
		{"placeholder.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n[pattern.success]\npattern = '(?P<n>\\d+) ok'\nsummary = '{count} ok'\n", 6, "{count}"},
		{"strategy.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n[pattern.failure]\nstrategy = \"middle\"\n", 5, `"middle"`},
		{"between.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n[pattern.failure]\nstrategy = \"between\"\nstart = 'x'\n", 4, "missing end"},
		{"nomatch.toml", "[[pattern]]\nname = \"a\"\n", 2, "missing command_match"},
		{"category.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\ncategory = \"loud\"\n", 4, `"loud"`},
		{"type.toml", "[[pattern]]\nname = \"a\"\ncommand_match = '^a'\n[pattern.failure]\nstrategy = \"tail\"\nlines = \"ten\"\n", 6, ""},
		{"empty.toml", "# nothing\n", 0, "no patterns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, tc.name, tc.toml)
			good := writeFile(t, dir, "zz-good.toml", "[[pattern]]\nname = \"good\"\ncommand_match = '^good'\n")
			set, errs := Load(dir)
			if len(errs) == 0 {
				t.Fatal("no error")
			}
			var le *LoadError
			if !errors.As(errs[0], &le) || le.Path != path || le.Line != tc.line || !strings.Contains(le.Msg, tc.msg) {
				t.Errorf("error %q (line %d), want line %d and %q", errs[0], le.Line, tc.line, tc.msg)
			}
			if tc.line > 0 && !strings.HasPrefix(errs[0].Error(), path+":"+itoa(tc.line)+": ") {
				t.Errorf("message %q does not start with path:line", errs[0])
			}
			// The broken file is skipped, the good one loads.
			list := set.List()
			if list[0].Name != "good" || list[0].Source != good || list[1].Source != SourceBuiltin {
				t.Errorf("loaded %+v", list[:2])
			}
		})
	}
}

func TestFailureFilters(t *testing.T) {
	out := "setup\nSTART a\nERROR x\nEND\nnoise\nSTART b\nboth END\nmore\nERROR y\nEND\ntail\n"
	for _, tc := range []struct {
		failure string
		want    string
	}{
		{"strategy = \"tail\"\nlines = 3", "... [8 lines truncated] ...\nERROR y\nEND\ntail\n"},
		{"strategy = \"head\"\nlines = 2", "setup\nSTART a\n... [9 lines truncated] ...\n"},
		{"strategy = \"grep\"\ngrep = '^ERROR'", "ERROR x\nERROR y\n"},
		{"strategy = \"between\"\nstart = '/^START/'\nend = '/END/'", "START a\nERROR x\nEND\nSTART b\nboth END\n"},
		{"strategy = \"between\"\nregex = true\nstart = '^START'\nend = 'END$'", "START a\nERROR x\nEND\nSTART b\nboth END\n"},
		// oo: start and end are plain substrings, so ^ and . are themselves.
		{"strategy = \"between\"\nstart = 'START'\nend = 'END'", "START a\nERROR x\nEND\nSTART b\nboth END\n"},
		{"strategy = \"between\"\nstart = '^START'\nend = 'END'", out},
		// Nothing selected: smart truncation of everything instead of nothing.
		{"strategy = \"grep\"\ngrep = 'PANIC'", out},
		// lines defaults to 30.
		{"strategy = \"tail\"", out},
	} {
		dir := t.TempDir()
		writeFile(t, dir, "t.toml", "command_match = '^t$'\n[failure]\n"+tc.failure+"\n")
		set, errs := Load(dir)
		if len(errs) != 0 {
			t.Fatal(errs)
		}
		if r := runOpts(set, []string{"t"}, out, 1, Options{}); r.Detail != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.failure, r.Detail, tc.want)
		}
	}
	// A long stream through tail keeps only the end.
	dir := t.TempDir()
	writeFile(t, dir, "t.toml", "command_match = '^t$'\n[failure]\nstrategy = \"tail\"\nlines = 2\n")
	set, _ := Load(dir)
	if r := runOpts(set, []string{"t"}, numbered(100000), 1, Options{}); r.Detail != "... [99998 lines truncated] ...\nline 99999\nline 100000\n" {
		t.Errorf("tail of 100000: %q", r.Detail)
	}
}

// oo's documented shapes: summary = "" is a quiet success (a bare ✓), and
// between's start and end are plain substrings, as in oo's make example.
func TestOOPatternFileShapes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "make.toml", `
command_match = '^make\b'
[success]
pattern = 'Nothing to be done|Leaving directory'
summary = ""
[failure]
strategy = "between"
start = "make["
end = "Error"
`)
	set, errs := Load(dir)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	out := numbered(600) + "make[1]: Leaving directory '/src'\n"
	r := runOpts(set, []string{"make", "all"}, out, 0, Options{})
	if r.Class != Success || r.Summary != "" || r.Headline("make") != "✓ make" {
		t.Errorf("quiet success: %s %q %q", r.Class, r.Summary, r.Headline("make"))
	}
	fail := "cc -c a.c\nmake[2]: Entering directory '/src/lib'\na.c:1: error: x\nmake[2]: *** [a.o] Error 1\nafter\n"
	r = runOpts(set, []string{"make"}, fail, 2, Options{})
	if r.Class != Failure || r.Detail != "make[2]: Entering directory '/src/lib'\na.c:1: error: x\nmake[2]: *** [a.o] Error 1\n" {
		t.Errorf("between make[ … Error: %s %q", r.Class, r.Detail)
	}
	// A summary key left out is still a mistake, named with its line.
	writeFile(t, dir, "nosummary.toml", "command_match = '^x'\n[success]\npattern = 'ok'\n")
	if _, errs := Load(dir); len(errs) != 1 || !strings.Contains(errs[0].Error(), "nosummary.toml:2: [success]: missing summary") {
		t.Errorf("errors %v", errs)
	}
}
