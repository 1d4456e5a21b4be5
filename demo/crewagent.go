package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// CrewAgent is one answer of a scripted crew agent (`flowdeck demo
// crew-agent ROLE`): deterministic, no network. The worker works for
// $DEMO_WORK (1s by default) on $FLOWDECK_FEATURE, writes
// internal/FEATURE.go in its working directory (the feature's worktree once
// there is one), commits it when that is a git repository, and answers the
// flow's JSON; the reviewer approves. For tests: every worker writes its
// pid to $DEMO_PIDS/FEATURE.pid, and the one on feature $DEMO_HANG hangs (to
// be killed) while $DEMO_PIDS/HANG exists. It returns the exit status.
func CrewAgent(role string, stdin io.Reader, stdout io.Writer) int {
	io.Copy(io.Discard, stdin) // the prompt: the script knows its part
	switch role {
	case "worker":
		return crewWorker(stdout)
	case "reviewer":
		crewAnswer(stdout, map[string]any{"verdict": "approved", "findings": []string{}})
		return 0
	}
	fmt.Fprintf(stdout, "unknown role %q (worker or reviewer)\n", role)
	return 2
}

func crewAnswer(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "```json\n%s\n```\n", b)
}

func crewWorker(out io.Writer) int {
	feature, agent := os.Getenv("FLOWDECK_FEATURE"), os.Getenv("FLOWDECK_AGENT")
	if feature == "" || strings.ContainsAny(feature, "/\\") || strings.HasPrefix(feature, ".") {
		crewAnswer(out, map[string]any{"outcome": "blocked", "summary": "no feature named in FLOWDECK_FEATURE"})
		return 0
	}
	if agent == "" {
		agent = "worker"
	}
	if pids := os.Getenv("DEMO_PIDS"); pids != "" {
		os.WriteFile(filepath.Join(pids, feature+".pid"), []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	if os.Getenv("DEMO_HANG") == feature && hangOn() {
		fmt.Fprintf(out, "%s: working on %s for a long time\n", agent, feature)
		time.Sleep(time.Hour)
	}
	work, err := time.ParseDuration(os.Getenv("DEMO_WORK"))
	if err != nil {
		work = time.Second
	}
	fmt.Fprintf(out, "%s: building %s (%s)\n", agent, feature, work)
	time.Sleep(work)
	files := []string{filepath.Join("internal", feature+".go")}
	text := fmt.Sprintf("// %s: built by %s.\npackage internal\n", feature, agent)
	if err := os.MkdirAll("internal", 0o755); err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	if err := os.WriteFile(files[0], []byte(text), 0o644); err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	if slices.Contains(ConflictPair[:], feature) {
		// Both append at the end of the same file: one merge conflicts.
		p := filepath.Join("internal", "oauth", "providers.go")
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintf(f, "//   %s (added by %s)\n", feature, agent)
			f.Close()
			files = append(files, p)
		}
	}
	if msg, err := commit(files, feature+": built by "+agent); err != nil {
		// A crashed git (a stale index.lock) needs the person.
		crewAnswer(out, map[string]any{"outcome": "needs_input", "summary": err.Error()})
		return 0
	} else if msg != "" {
		fmt.Fprintln(out, msg)
	}
	crewAnswer(out, map[string]any{"outcome": "completed", "summary": "built " + feature})
	return 0
}

// commit commits files in the working directory when it is a git
// repository. Without worktrees the agents share one index: a commit that
// meets another's index.lock tries again.
func commit(files []string, msg string) (string, error) {
	if _, err := os.Stat(".git"); err != nil {
		return "", nil // not a repository (or git is missing): the files are the work
	}
	var last []byte
	for i := 0; i < 100; i++ {
		add := exec.Command("git", append([]string{"add", "--"}, files...)...)
		if out, err := add.CombinedOutput(); err != nil {
			last = out
			time.Sleep(20 * time.Millisecond)
			continue
		}
		c := exec.Command("git", append([]string{"commit", "-q", "-m", msg, "--"}, files...)...)
		out, err := c.CombinedOutput()
		if err == nil {
			return "committed: " + msg, nil
		}
		last = out
		time.Sleep(20 * time.Millisecond)
	}
	return "", fmt.Errorf("git commit failed: %s", strings.TrimSpace(string(last)))
}

// hangOn reports whether the hang of a test is still wanted.
func hangOn() bool {
	pids := os.Getenv("DEMO_PIDS")
	if pids == "" {
		return true
	}
	_, err := os.Stat(filepath.Join(pids, "HANG"))
	return err == nil
}
