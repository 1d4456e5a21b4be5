package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepo is a repository with more history than a terminal screen and an
// uncommitted change longer than one, so git would start its pager.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	// fast-import writes 100 commits in one process (each one's parent is
	// the branch's previous commit).
	var fi strings.Builder
	for i := 1; i <= 100; i++ {
		msg := fmt.Sprintf("commit %d\n", i)
		fmt.Fprintf(&fi, "commit refs/heads/master\ncommitter t <t@example.com> %d +0000\ndata %d\n%s", 1700000000+i, len(msg), msg)
		content := strings.Repeat(fmt.Sprintf("line %d\n", i), 100)
		fmt.Fprintf(&fi, "M 644 inline f.txt\ndata %d\n%s\n", len(content), content)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(fi.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	git("checkout", "-q", "-f", "master")
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Repeat("changed\n", 200)), 0o644)
	return dir
}

type runJSON struct {
	ID       string `json:"run_id"`
	Outcome  string `json:"outcome"`
	ExitCode int    `json:"exit_code"`
	Summary  string `json:"summary"`
}

// runJSONIn runs `flowdeck --json run` in dir and decodes the result.
func runJSONIn(t *testing.T, dir string, env []string, argv ...string) runJSON {
	t.Helper()
	out, errs, code := flowdeckEnv(t, dir, env, append([]string{"--json", "run", "--timeout", "60s", "--"}, argv...)...)
	var r runJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run %q: exit %d, not JSON: %v\n%s\n%s", argv, code, err, out, errs)
	}
	return r
}

// Pagers and prompts return: nobody types into a run, so nothing waits for
// a key (each would wait forever at a terminal; the timeout is a backstop).
func TestPagersAndPromptsReturn(t *testing.T) {
	dir := gitRepo(t)
	// The person's own settings must not bring the pager back.
	env := []string{"PAGER=less", "GIT_PAGER=less", "LESS="}
	cases := []struct {
		argv []string
		exit int
		need string
	}{
		{[]string{"git", "log"}, 0, ""},
		{[]string{"git", "diff"}, 0, ""},
		{[]string{"git", "log", "-p"}, 0, ""},
		{[]string{"sh", "-c", `read x; echo "stdin:$?"`}, 0, ""},
		{[]string{"sh", "-c", `read x </dev/tty; echo "tty:$?"`}, 0, ""},
		{[]string{"python3", "-c", "input()"}, 1, "python3"},
		// A password prompt reads /dev/tty with echo off, as ssh does.
		{[]string{"python3", "-c", "import getpass; getpass.getpass()"}, 1, "python3"},
		{[]string{"man", "ls"}, 0, "man"},
	}
	for _, c := range cases {
		if c.need != "" {
			if _, err := exec.LookPath(c.need); err != nil {
				t.Logf("skip %q: %s is not installed", c.argv, c.need)
				continue
			}
			if c.need == "man" && exec.Command("man", "-w", "ls").Run() != nil {
				t.Logf("skip %q: no manual page for ls here", c.argv)
				continue
			}
		}
		start := time.Now()
		r := runJSONIn(t, dir, env, c.argv...)
		if r.Outcome != "exited" || r.ExitCode != c.exit {
			t.Errorf("%q: outcome %s exit %d (want exited %d) after %s: %s", c.argv, r.Outcome, r.ExitCode, c.exit, time.Since(start).Round(time.Millisecond), r.Summary)
		}
	}
}

// A command that keeps waiting for a key in raw mode is ended as stalled
// after run.stall; the config's [run.env] overrides the defaults.
func TestStalledRunIsNamed(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[run]\nstall = \"1s\"\n[run.env]\nPAGER = \"more\"\n"), 0o644)
	env := []string{"FLOWDECK_CONFIG=" + cfg}
	r := runJSONIn(t, dir, env, "sh", "-c", `echo "pager=$PAGER"; stty raw -echo </dev/tty; while :; do dd bs=1 count=1 </dev/tty 2>/dev/null; done`)
	if r.Outcome != "stalled_waiting_for_input" || !strings.Contains(r.Summary, "stalled waiting for input") {
		t.Fatalf("outcome %s, summary %q", r.Outcome, r.Summary)
	}
	out, _, _ := flowdeck(t, dir, "show", r.ID)
	if !strings.Contains(out, "pager=more") {
		t.Fatalf("config run.env did not override PAGER: %q", out)
	}
}

// A literate flow's {exec} blocks run the same way: a pager or a prompt in
// one does not hold the flow.
func TestFlowExecNeverWaitsForInput(t *testing.T) {
	dir := gitRepo(t)
	flow := "---\nliterate: true\n---\n```yaml {config}\nstep: one\n```\n" +
		"```sh {exec}\ngit log\n```\n```sh {exec}\ngit diff\n```\n```sh {exec mode=store}\nread x </dev/tty; echo \"{\\\"tty\\\": $?}\"\n```\n"
	file := filepath.Join(dir, "pager.md")
	os.WriteFile(file, []byte(flow), 0o644)
	var res struct {
		Run struct {
			Status string         `json:"status"`
			Vars   map[string]any `json:"vars"`
		} `json:"run"`
	}
	out, errs, code := flowdeckEnv(t, dir, []string{"GIT_PAGER=less"}, "--json", "flows", "run", file)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\n%s", code, err, out, errs)
	}
	if res.Run.Status != "completed" || res.Run.Vars["tty"] != float64(1) {
		t.Fatalf("flow: exit %d, %s\n%s", code, out, errs)
	}
}

// Bad limits are usage errors (exit 2) that name the flag.
func TestRunLimitValidation(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ flag, value string }{
		{"--memory", "-1"}, {"--memory", "NaN"}, {"--memory", "Inf"}, {"--memory", "99999999999999999999"},
		{"--memory", "12X"}, {"--pids", "-1"}, {"--pids", "99999999999"}, {"--cpu", "-1"}, {"--cpu", "NaN"},
		{"--cpu", "Inf"}, {"--cpu", "-Inf"}, {"--cpu", "1e300"}, {"--timeout", "-5s"}, {"--timeout", "99999999999h"},
	} {
		_, errs, code := flowdeck(t, dir, "run", c.flag, c.value, "--", "true")
		if code != 2 || !strings.Contains(errs, c.flag) {
			t.Errorf("run %s %s: exit %d, stderr %q; want exit 2 naming %s", c.flag, c.value, code, errs, c.flag)
		}
	}
	if runs := listRuns(t, dir, nil); len(runs) != 0 {
		t.Fatalf("a refused run was recorded: %+v", runs)
	}
}
