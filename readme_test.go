package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/testbin"
)

// TestREADMEWalkthrough runs the README's getting-started page as a
// newcomer would, in a new git repository of a small Go module: the init
// block, the plan file, and the session from plan start to land, line by
// line, each command as written. A comment line is the agent's turn: the
// test writes the code the feature asks for where the comment says. Every
// command must succeed and the work must end on the person's branch.
func TestREADMEWalkthrough(t *testing.T) {
	for _, tool := range []string{"git", "go", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the README's walkthrough needs it", tool)
		}
	}
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	initBlock := fencedAfter(t, string(raw), "### 3.", "sh")
	plan := fencedAfter(t, string(raw), "### 4.", "json")
	session := fencedAfter(t, string(raw), "### 5.", "sh")

	bin, err := testbin.Build(testbin.Flowdeck)
	if err != nil {
		t.Fatal(err)
	}
	dir, home := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"GIT_AUTHOR_NAME=newcomer", "GIT_AUTHOR_EMAIL=newcomer@example.com",
		"GIT_COMMITTER_NAME=newcomer", "GIT_COMMITTER_EMAIL=newcomer@example.com")
	sh := func(line string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README line %q: %v\n%s", line, err, out)
		}
		return string(out)
	}
	sh("git init -q -b main && printf 'module greet\\n\\ngo 1.22\\n' > go.mod && git add go.mod && git commit -q -m start")
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	agentWrote := false
	for _, block := range []string{initBlock, session} {
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || strings.HasPrefix(line, "cd "):
			case strings.HasPrefix(line, "#"):
				agentWrites(t, dir, line)
				agentWrote = true
			default:
				sh(line)
			}
		}
	}
	if !agentWrote {
		t.Fatal("the README's session has no agent's turn (a comment line naming where it writes)")
	}
	if got := sh("git log -1 --format=%s main && git ls-files"); !strings.Contains(got, "greet.go") {
		t.Fatalf("the feature's code is not on main after the land:\n%s", got)
	}
}

// fencedAfter is the body of the first ```lang block after the line that
// starts with heading.
func fencedAfter(t *testing.T, doc, heading, lang string) string {
	t.Helper()
	at := strings.Index(doc, "\n"+heading)
	if at < 0 {
		t.Fatalf("the README has no %q section", heading)
	}
	m := regexp.MustCompile("(?s)\n```" + lang + "\n(.*?)\n```").FindStringSubmatch(doc[at:])
	if m == nil {
		t.Fatalf("the README's %q section has no ```%s block", heading, lang)
	}
	return m[1]
}

// agentWrites does the agent's turn the comment describes: the greeting
// and its test, in the directory the comment names.
var agentDir = regexp.MustCompile(`\.flow/worktrees/[a-z0-9-]+`)

func agentWrites(t *testing.T, dir, comment string) {
	t.Helper()
	where := agentDir.FindString(comment)
	if where == "" {
		t.Fatalf("the agent's turn %q names no worktree", comment)
	}
	files := map[string]string{
		"greet.go":      "package greet\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n",
		"greet_test.go": "package greet\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(Hello())\n\t}\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, where, name), []byte(text), 0o644); err != nil {
			t.Fatalf("the agent's turn: %v", err)
		}
	}
}
