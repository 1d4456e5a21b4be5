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
// be killed) while $DEMO_PIDS/HANG exists, writing its pid to
// $DEMO_PIDS/FEATURE.hung once it does. It returns the exit status.
func CrewAgent(role string, stdin io.Reader, stdout io.Writer) int {
	prompt, _ := io.ReadAll(stdin) // the script knows its part; it looks for a conflict
	switch role {
	case "worker":
		return crewWorker(stdout, string(prompt))
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

func crewWorker(out io.Writer, prompt string) int {
	feature, agent := os.Getenv("FLOWDECK_FEATURE"), os.Getenv("FLOWDECK_AGENT")
	if feature == "" || strings.ContainsAny(feature, "/\\") || strings.HasPrefix(feature, ".") {
		crewAnswer(out, map[string]any{"outcome": "blocked", "summary": "no feature named in FLOWDECK_FEATURE"})
		return 0
	}
	if agent == "" {
		agent = "worker"
	}
	if strings.Contains(prompt, CatchUpNote) || strings.Contains(prompt, ConflictNote) {
		// Not feature work: bring the branch up to date (resolving the
		// conflict), no more; the feature is built already.
		msg, err := mergeIntegration(os.Getenv("FLOWDECK_SESSION"))
		if err != nil {
			crewAnswer(out, map[string]any{"outcome": "needs_input", "summary": err.Error(), "catchup_outcome": "needs_input", "catchup_summary": err.Error()})
			return 0
		}
		// The catch-up step asks for catchup_outcome and catchup_summary,
		// the conflict's rework for outcome and summary.
		crewAnswer(out, map[string]any{"outcome": "completed", "summary": msg, "catchup_outcome": "completed", "catchup_summary": msg})
		return 0
	}
	if pids := os.Getenv("DEMO_PIDS"); pids != "" {
		os.WriteFile(filepath.Join(pids, feature+".pid"), []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	if os.Getenv("DEMO_HANG") == feature && hangOn() {
		fmt.Fprintf(out, "%s: working on %s for a long time\n", agent, feature)
		// Only now is the hang certain: a test waiting on the pid file alone
		// could remove HANG while a slow agent has yet to look at it.
		if pids := os.Getenv("DEMO_PIDS"); pids != "" {
			os.WriteFile(filepath.Join(pids, feature+".hung"), []byte(fmt.Sprint(os.Getpid())), 0o644)
		}
		time.Sleep(time.Hour)
	}
	work, err := time.ParseDuration(os.Getenv("DEMO_WORK"))
	if err != nil {
		work = time.Second
	}
	fmt.Fprintf(out, "%s: building %s (%s)\n", agent, feature, work)
	time.Sleep(work)
	if strings.Contains(prompt, VerifyFailedNote) {
		// Catch up with the features merged since the worktree was made:
		// the broad validation of the last feature checks them all.
		msg, err := mergeIntegration(os.Getenv("FLOWDECK_SESSION"))
		if err != nil {
			crewAnswer(out, map[string]any{"outcome": "needs_input", "summary": err.Error()})
			return 0
		}
		fmt.Fprintln(out, msg)
	}
	files, err := build(feature, agent)
	if err != nil {
		fmt.Fprintln(out, err)
		return 1
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

// build writes the feature's file and, for the conflict pair, appends its
// line to the shared file (once: a second round changes nothing).
func build(feature, agent string) ([]string, error) {
	files := []string{filepath.Join("internal", feature+".go")}
	text := fmt.Sprintf("// %s: built by %s.\npackage internal\n", feature, agent)
	if err := os.MkdirAll("internal", 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(files[0], []byte(text), 0o644); err != nil {
		return nil, err
	}
	if !slices.Contains(ConflictPair[:], feature) {
		return files, nil
	}
	// Both append at the end of the same file: in worktrees, one merge conflicts.
	p := RegistryFile
	line := fmt.Sprintf("//   %s\n", feature)
	old, _ := os.ReadFile(p)
	if strings.Contains(string(old), line) {
		return append(files, p), nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	return append(files, p), os.WriteFile(p, append(old, line...), 0o644)
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
		if exec.Command("git", append([]string{"diff", "--cached", "--quiet", "--"}, files...)...).Run() == nil {
			return "nothing new to commit", nil // a second round
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
