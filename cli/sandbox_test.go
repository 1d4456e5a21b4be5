package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/internal/sandbox"
	"github.com/flowdeck/flowdeck/model"
)

// needSandbox skips a test where bubblewrap is missing or cannot make its
// namespaces, saying which; under FLOWDECK_CI=1 (.ci/run installs it) it
// fails instead.
func needSandbox(t testing.TB) {
	t.Helper()
	if _, err := sandbox.Usable(context.Background(), os.Getenv("PATH")); err != nil {
		if os.Getenv("FLOWDECK_CI") == "1" {
			t.Fatalf("FLOWDECK_CI=1: %v", err)
		}
		t.Skipf("no sandbox on this machine: %v", err)
	}
}

// escapeAgent is a worker that does its work in its worktree (and commits
// it), then tries what a sandbox must stop, one line per try in
// report.txt in its worktree, and exits 1 naming the first refusal.
const escapeAgent = `#!/bin/sh
n=$(cat attempts 2>/dev/null || echo 0); n=$((n+1)); echo $n > attempts
echo "work $n" >> work.txt
git add work.txt attempts && git commit -q -m "agent work $n" || { echo "COMMIT FAILED"; exit 3; }
common=$(git rev-parse --path-format=absolute --git-common-dir)
try() {
  what=$1; shift
  if ( "$@" ) 2>err.txt; then echo "ESCAPED $what" >> report.txt; else echo "REFUSED $what: $(tr '\n' ' ' < err.txt)" >> report.txt; fi
}
try outside sh -c 'echo x > "$FLOWDECK_DIR/outside.txt"'
try delete rm -f "$FLOWDECK_DIR/a.txt"
try db sh -c 'echo SANDBOX-ESCAPE-MARKER >> "$FLOWDECK_DIR/.flow/flowdeck.db"'
try db-remove rm -f "$FLOWDECK_DIR/.flow/flowdeck.db"
try git-config git config core.hooksPath /tmp/evil
try git-config-append sh -c 'echo "[core] hooksPath = /tmp/evil" >> "$0/config"' "$common"
try hook sh -c 'printf "#!/bin/sh\necho pwned\n" > "$0/hooks/pre-commit"' "$common"
try main-branch git update-ref refs/heads/main HEAD
try home rm "$HOME/precious"
try dotgit sh -c 'echo "gitdir: /tmp" > .git'
flowdeck --dir "$FLOWDECK_DIR" --json flow status > status.json 2> err.txt || echo "READ FAILED status: $(cat err.txt)" >> report.txt
try flow-note flowdeck --dir "$FLOWDECK_DIR" flow note "from the sandbox"
echo "sandbox: $(grep -m1 REFUSED report.txt)"
exit 1
`

// sandboxProject is a git project with an approved two-feature worktree
// plan and a config whose sandboxed worker is script; env is what
// flowdeck runs with (HOME is a home of the test's, holding "precious").
func sandboxProject(t *testing.T, script string) (p *gitProject, env []string, home string) {
	p = newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`)
	state := t.TempDir()
	home = filepath.Join(state, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, "precious"), []byte("the person's file\n"), 0o644)
	agent := filepath.Join(state, "agent.sh")
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(agent)
	cfg := filepath.Join(state, "config.toml")
	os.WriteFile(cfg, []byte("[agents.worker]\ncommand = ["+string(q)+"]\nsandbox = true\n"), 0o644)
	return p, []string{"FLOWDECK_CONFIG=" + cfg, "HOME=" + home}, home
}

// fileBytesAndTime is a file's bytes and modification time ("" when missing).
func fileBytesAndTime(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	return fi.ModTime().String() + "\n" + string(b)
}

// runSandboxed runs feature a through `flows run run` until it waits for
// the person, and returns feature a as flow status shows it.
func runSandboxed(t *testing.T, p *gitProject, env []string) (*model.Feature, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a backstop against a hang, not a wait
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--dir", p.dir, "--json", "flows", "run", "run", "a", "--no-wait")
	cmd.Env = append(os.Environ(), env...)
	out, errs, code := runProcess(t, cmd)
	var res runResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Run.Status != model.FlowWaiting || res.Decision == nil || res.Decision.Step != "agent-failed" {
		t.Fatalf("flows run run a: exit %d, want a run waiting on agent-failed: %v\n%s\n%s", code, err, out, errs)
	}
	var st struct{ Session model.Session }
	if err := json.Unmarshal([]byte(p.must("--json", "flow", "status", "--full")), &st); err != nil {
		t.Fatal(err)
	}
	f := st.Session.Plan.Feature("a")
	if f == nil || f.Interrupted == nil {
		t.Fatalf("feature a is not interrupted: %+v", f)
	}
	return f, errs
}

// A sandboxed worker commits in its worktree; every write outside it (the
// person's checkout, .flow/flowdeck.db, .git/config and hooks, the
// person's branch, its home, its worktree's .git file) fails, the feature
// ends interrupted with the error, and nothing outside changed.
func TestSandboxedAgentWritesOnlyItsWorktree(t *testing.T) {
	needSandbox(t)
	p, env, home := sandboxProject(t, escapeAgent)
	dbPath := filepath.Join(p.dir, ".flow", "flowdeck.db")
	gitDir := filepath.Join(p.dir, ".git")
	watched := []string{filepath.Join(p.dir, "a.txt"), filepath.Join(p.dir, "outside.txt"), filepath.Join(gitDir, "config"),
		filepath.Join(gitDir, "hooks", "pre-commit"), filepath.Join(gitDir, "refs", "heads", "main"), filepath.Join(home, "precious")}
	before := map[string]string{}
	for _, w := range watched {
		before[w] = fileBytesAndTime(t, w)
	}
	f, errs := runSandboxed(t, p, env)
	if !strings.Contains(f.Interrupted.Summary, "Read-only file system") {
		t.Errorf("the interruption does not carry the sandbox's error: %q\n%s", f.Interrupted.Summary, errs)
	}
	wt := filepath.Join(p.dir, ".flow", "worktrees", "a")
	report, err := os.ReadFile(filepath.Join(wt, "report.txt"))
	if err != nil {
		t.Fatalf("the agent left no report in its worktree: %v\n%s", err, errs)
	}
	t.Logf("the agent's report:\n%s", report)
	for _, what := range []string{"outside", "delete", "db", "db-remove", "git-config", "git-config-append", "hook", "main-branch", "home", "dotgit", "flow-note"} {
		if !strings.Contains(string(report), "REFUSED "+what+":") {
			t.Errorf("%s was not refused", what)
		}
	}
	if strings.Contains(string(report), "ESCAPED") || strings.Contains(string(report), "READ FAILED") {
		t.Errorf("a write escaped the sandbox, or flowdeck could not read its project in it:\n%s", report)
	}
	for _, w := range watched {
		if after := fileBytesAndTime(t, w); after != before[w] {
			t.Errorf("%s changed:\nbefore %q\nafter  %q", w, before[w], after)
		}
	}
	if b, _ := os.ReadFile(dbPath); bytes.Contains(b, []byte("SANDBOX-ESCAPE-MARKER")) {
		t.Error("the agent wrote into .flow/flowdeck.db")
	}
	// Its work is committed on its branch (every attempt's: the flow asks
	// again after a failed answer).
	log := p.git(p.dir, "log", "--format=%s", p.integ+".a")
	if !strings.Contains(log, "agent work 1") {
		t.Errorf("the agent's commit is not on its branch:\n%s", log)
	}
	// The agent's runs are stored as what ran: bwrap around the agent.
	var runs []struct {
		Argv  []string `json:"argv"`
		Actor string   `json:"actor"`
	}
	out := p.must("--json", "runs")
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		var wrapped struct {
			Runs []struct {
				Argv  []string `json:"argv"`
				Actor string   `json:"actor"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &wrapped); err != nil {
			t.Fatalf("runs --json: %v\n%s", err, out)
		}
		runs = wrapped.Runs
	}
	sandboxed := 0
	for _, r := range runs {
		if r.Actor == "worker" {
			if len(r.Argv) == 0 || filepath.Base(r.Argv[0]) != sandbox.Program {
				t.Errorf("an agent run did not go through bwrap: %q", r.Argv)
			}
			sandboxed++
			if sandboxed == 1 {
				t.Logf("the worker's command: %q", r.Argv)
			}
		}
	}
	if sandboxed != 4 {
		t.Errorf("%d sandboxed worker runs, want 4 (an answer and 3 retries)", sandboxed)
	}
	if p.must("flow", "verify") == "" {
		t.Error("flow verify printed nothing")
	}
}

// Without bwrap on PATH a sandboxed agent is refused before it runs, the
// error naming the package; the feature is interrupted with it.
func TestSandboxedAgentRefusedWithoutBubblewrap(t *testing.T) {
	p, env, _ := sandboxProject(t, escapeAgent)
	// PATH with every program of the test's PATH but bwrap.
	farm := t.TempDir()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != sandbox.Program {
				os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(farm, e.Name())) // the first on PATH wins, as a shell's lookup
			}
		}
	}
	f, errs := runSandboxed(t, p, append(env, "PATH="+farm))
	if !strings.Contains(f.Interrupted.Summary, "apt install bubblewrap") || !strings.Contains(f.Interrupted.Summary, "sandbox = true") {
		t.Errorf("the refusal does not name the package: %q\n%s", f.Interrupted.Summary, errs)
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".flow", "worktrees", "a", "attempts")); err == nil {
		t.Error("the agent ran without its sandbox")
	}
}
