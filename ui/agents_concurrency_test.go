package ui

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// An MCP server (the real `flowdeck mcp`), a CLI loop (the real binary) and
// the cockpit's root model, driven by key presses, all add notes to one
// project at once: every note is stored exactly once and the event logs
// replay to the stored state.
func TestMCPCLIAndCockpitShareOneProject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and spawns flowdeck; skipped with -short")
	}
	flowdeck := filepath.Join(binaries(t), "flowdeck")
	dir := t.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "three writers"}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(flowdeck, "--dir", dir, "mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	const each = 30
	var wg sync.WaitGroup
	failures := make(chan string, 2*each)
	wg.Go(func() {
		for i := range each {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "flow_note", Arguments: map[string]any{"text": fmt.Sprintf("mcp-%d", i)}})
			if err != nil || res.IsError {
				failures <- fmt.Sprintf("mcp note %d: %v %v", i, err, res)
			}
		}
	})
	wg.Go(func() {
		for i := range each {
			if out, err := exec.Command(flowdeck, "--dir", dir, "flow", "note", fmt.Sprintf("cli-%d", i)).CombinedOutput(); err != nil {
				failures <- fmt.Sprintf("cli note %d: %v %s", i, err, out)
			}
		}
	})
	h := newHarness(t, st, 120, 40, zeroConfig())
	for i := range each {
		h.key(":")
		h.typeText(fmt.Sprintf("/flow-note cockpit-%d", i))
		h.key("enter")
		h.tick() // the live refresh reads what the others wrote meanwhile
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}

	s := active(t, st)
	events, err := st.Events(s.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range events {
		if e.Type == model.EventNoteAdded {
			seen[e.Text]++
		}
	}
	for _, who := range []string{"mcp", "cli", "cockpit"} {
		for i := range each {
			if n := seen[fmt.Sprintf("%s-%d", who, i)]; n != 1 {
				t.Errorf("note %s-%d stored %d times", who, i, n)
			}
		}
	}
	if s.NotesTotal != 3*each {
		t.Errorf("notes_total %d, want %d", s.NotesTotal, 3*each)
	}
	if out, err := exec.Command(flowdeck, "--dir", dir, "flow", "verify").CombinedOutput(); err != nil || !strings.Contains(string(out), "matches") {
		t.Fatalf("verify: %v %s", err, out)
	}
}
