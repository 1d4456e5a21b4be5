package mcp_test

import (
	"os/exec"
	"testing"
)

// The MCP run tool never waits on a person: pagers print, prompts read
// end-of-file (each of these would wait forever at a terminal).
func TestRunToolNeverWaitsForInput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	project := t.TempDir()
	script := `git init -q . && for i in $(seq 1 60); do git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "commit $i" || exit 9; done`
	if out, err := exec.Command("sh", "-c", "cd "+project+" && "+script).CombinedOutput(); err != nil {
		t.Fatalf("make history: %v %s", err, out)
	}
	t.Setenv("GIT_PAGER", "less") // the server's own environment must not bring the pager back
	cs := connect(t, project, nil)
	for _, argv := range [][]any{
		{"git", "log"},
		{"sh", "-c", `read x </dev/tty; echo "tty:$?"`},
		{"sh", "-c", `read x; echo "stdin:$?"`},
	} {
		out, isErr := call(t, cs, "run", map[string]any{"command": argv, "timeout": "60s"})
		run, _ := out["run"].(map[string]any)
		if isErr || run["outcome"] != "exited" || run["exit_code"] != float64(0) {
			t.Errorf("%v: %v", argv, out)
		}
	}
}
