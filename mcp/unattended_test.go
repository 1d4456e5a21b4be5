package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/model"
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
		if isErr || out["outcome"] != "exited" || out["exit_code"] != float64(0) {
			t.Errorf("%v: %v", argv, out)
		}
	}
}

// A SIGKILLed MCP server leaves no run that says running: the next
// flowdeck process marks the one it was capturing interrupted.
func TestKilledServerLeavesInterruptedRun(t *testing.T) {
	project := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.Command(bin, "--dir", project, "mcp")
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	go cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"command": []any{"sh", "-c", "echo started; sleep 1000"}}})
	runs := func() []model.RunRecord {
		var res struct {
			Runs []model.RunRecord `json:"runs"`
		}
		if err := json.Unmarshal([]byte(flowdeck(t, project, "--json", "runs")), &res); err != nil {
			t.Fatal(err)
		}
		return res.Runs
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if r := runs(); len(r) == 1 && r[0].Bytes > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run's output was never committed")
		}
	}
	cmd.Process.Kill()
	cs.Close() // waits for the killed server (the transport owns cmd.Wait)
	if r := runs(); len(r) != 1 || r[0].Outcome != model.RunInterrupted {
		t.Fatalf("after the server's death: %+v", r)
	}
}
