package demo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ConflictNote is what run.md tells the worker after a merge conflict; the
// scripted worker then merges the integration branch and resolves it.
const ConflictNote = "conflicts with the integration branch"

// CatchUpNote is what run.md asks of the last feature's worker before the
// broad validation, in a session with worktrees.
const CatchUpNote = "merge the integration branch into your branch now"

// VerifyFailedNote is what run.md tells the worker after a failed
// verification; the scripted worker then merges the integration branch too.
const VerifyFailedNote = "The verification failed"

// mergeIntegration merges the session's integration branch
// (flowdeck/SESSION) into the feature branch checked out here and resolves
// a conflict by keeping both sides, as the scripted agent's idea of a
// rebase: the demo's conflicting lines are independent.
func mergeIntegration(session string) (string, error) {
	branch := "flowdeck/" + session
	if session == "" || exec.Command("git", "rev-parse", "--verify", "--quiet", branch).Run() != nil {
		return "no integration branch " + branch + " to merge", nil
	}
	out, err := exec.Command("git", "merge", "--no-edit", "-m", "merge "+branch, branch).CombinedOutput()
	if err == nil {
		return "merged " + branch + " cleanly", nil
	}
	names, lerr := exec.Command("git", "diff", "--name-only", "--diff-filter=U").Output()
	if lerr != nil || len(bytes.TrimSpace(names)) == 0 {
		exec.Command("git", "merge", "--abort").Run()
		return "", fmt.Errorf("git merge %s: %v: %s", branch, err, bytes.TrimSpace(out))
	}
	files := strings.Fields(string(names))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(f, []byte(keepBoth(string(data))), 0o644); err != nil {
			return "", err
		}
	}
	if out, err := exec.Command("git", append([]string{"add", "--"}, files...)...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git add: %v: %s", err, out)
	}
	if out, err := exec.Command("git", "commit", "-q", "--no-edit").CombinedOutput(); err != nil {
		return "", fmt.Errorf("git commit: %v: %s", err, out)
	}
	return fmt.Sprintf("merged %s, kept both sides in %s", branch, strings.Join(files, ", ")), nil
}

// keepBoth drops git's conflict markers, keeping ours then theirs (and
// not the common ancestor's lines of a diff3-style conflict).
func keepBoth(text string) string {
	var b strings.Builder
	inBase := false
	for _, line := range strings.SplitAfter(text, "\n") {
		marker := strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(marker, "<<<<<<< "), strings.HasPrefix(marker, ">>>>>>> "):
			continue
		case strings.HasPrefix(marker, "||||||| "):
			inBase = true
			continue
		case marker == "=======":
			inBase = false
			continue
		case inBase:
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
