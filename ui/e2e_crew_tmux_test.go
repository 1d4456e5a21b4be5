package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
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
	tm := newTmux(t, dir, 120, 40, cmd)

	tm.waitFor("review api (worker-2)", 30*time.Second)
	tm.waitFor("1 approved", 10*time.Second)
	time.Sleep(500 * time.Millisecond) // the prompt's grace period
	tm.keys("1")
	tm.waitFor("decision "+c.review+": approved", 15*time.Second)

	// worker-3's question opens next, by itself: later.
	tm.waitFor("Which flag parser should cli use?", 15*time.Second)
	time.Sleep(500 * time.Millisecond)
	tm.keys("Escape")
	tm.waitGone("1 cobra", 10*time.Second)
	tm.keys("8")
	tm.waitFor("8 Agents", 10*time.Second)
	scr := tm.waitFor("worker-3 cli", 10*time.Second)
	for _, want := range []string{"worker-1 store", "compiling store/bolt.go 80%", "worker-2 api", "waiting for a decision", "which flag parser: cobra or kong?"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the agents pane lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "pwned") || strings.Contains(scr, "evil") {
		t.Errorf("an agent's escape sequences reached the screen:\n%s", scr)
	}

	tm.keys("q")
	tm.waitFor("flowdeck exited 0", 15*time.Second)
	d, err := st.Decision(c.review)
	if err != nil || d.Resolution == nil || d.Resolution.Option != "approved" || d.Resolution.Actor != "e2e" {
		t.Fatalf("worker-2's review: %+v %v", d, err)
	}
}
