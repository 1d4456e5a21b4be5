package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/tmuxtest"
)

// TestTmuxCrewEndToEnd runs the real cockpit in tmux at 120×40 on a project
// a crew of three left mid-session (seedCrew: their flow runs' locks held by
// this test, as their processes would): worker-2's review prompt opens by
// itself and 1 approves it; worker-3's question is put off; 8 shows the
// three agents at once, their output lines cleaned. The answer is stored.
//
// When `flowdeck demo --agents 3` exists, the same steps can drive it:
// start the demo instead of seeding, and wait for the rows.
func TestTmuxCrewEndToEnd(t *testing.T) {
	needTmux(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "crew")
	st, err := db.Open(filepath.Join(project, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := seedCrew(t, st)
	bin := filepath.Join(binaries(t), "flowdeck")
	cmd := "env XDG_CONFIG_HOME=" + dir + " FLOWDECK_ACTOR=e2e TERM=xterm-256color " + bin + " --dir " + project +
		"; echo flowdeck exited $?; sleep 60"
	tm := tmuxtest.New(t, 120, 40, cmd)

	tm.WaitFor("review api (worker-2)")
	tm.WaitFor("1 approved")
	time.Sleep(500 * time.Millisecond) // the prompt's grace period
	tm.Keys("1")
	tm.WaitFor("decision " + c.review + ": approved")

	// worker-3's question opens next, by itself: later.
	tm.WaitFor("Which flag parser should cli use?")
	time.Sleep(500 * time.Millisecond)
	tm.Keys("Escape")
	tm.WaitGone("1 cobra")
	tm.Keys("8")
	tm.WaitFor("8 Agents")
	scr := tm.WaitFor("worker-3 cli")
	for _, want := range []string{"worker-1 store", "compiling store/bolt.go 80%", "worker-2 api", "waiting for a decision", "which flag parser: cobra or kong?"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the agents pane lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "pwned") || strings.Contains(scr, "evil") {
		t.Errorf("an agent's escape sequences reached the screen:\n%s", scr)
	}

	tm.Keys("q")
	tm.WaitFor("flowdeck exited 0")
	d, err := st.Decision(c.review)
	if err != nil || d.Resolution == nil || d.Resolution.Option != "approved" || d.Resolution.Actor != "e2e" {
		t.Fatalf("worker-2's review: %+v %v", d, err)
	}
}
