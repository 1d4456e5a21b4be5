package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// The output pane shows a plain log with its colours, the last state of a
// \r progress line, and none of the command's other escape sequences.
func TestOutputPlainLog(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running") // its newest run is still printing
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("5 Output  go test ./reset-api/...", "downloading fixtures 100%", "token expired too early", "follow")
	h.mustNotSee("downloading fixtures 10%", "downloading fixtures 55%")
	content := h.m.View().Content
	for _, bad := range []string{"\x1b]0;", "\x07", "\r"} {
		if strings.Contains(content, bad) {
			t.Errorf("the frame carries the command's %q", bad)
		}
	}
	if !strings.Contains(content, "\x1b[31m--- FAIL: TestExpiry") {
		t.Error("the command's colours are gone")
	}
}

// A full-screen program is rendered through the terminal emulator.
func TestOutputFullScreenThroughEmulator(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "planning")
	addRun(t, st, t0, []string{"agent-tui"}, "", "\x1b[?1049h\x1b[2J\x1b[1;1Hjunk that gets overwritten\x1b[1;1H\x1b[2KAGENT DASHBOARD\x1b[5;10Hstep 3 of 7\x1b[6;10H\x1b[1mthinking…\x1b[0m", 0, false)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("AGENT DASHBOARD", "         step 3 of 7", "vt")
	h.mustNotSee("junk that gets overwritten")
	if strings.Contains(h.m.View().Content, "\x1b[?1049h") || strings.Contains(h.m.View().Content, "\x1b[5;10H") {
		t.Fatal("cursor movement reached the frame")
	}
}

// A run that keeps printing streams into the pane on the poll tick; follow
// keeps the end in view; f turns it off; w wraps.
func TestOutputLiveFollowWrap(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "planning")
	rec := []string{"sh", "-c", "build"}
	w, err := st.StartRun(dbRun(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Finish(dbRun(rec), 0)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustSee("⟳ sh -c build", "no output yet")
	var all strings.Builder
	for i := range 60 {
		line := "building step " + itoa(i) + "\n"
		all.WriteString(line)
		writeRaw(w, []byte(line))
	}
	waitStored(t, st, w.ID(), int64(all.Len()))
	h.tick()
	h.mustSee("building step 59", "follow")
	h.mustNotSee("building step 0\n")
	h.key("5", "f")
	h.mustSee("follow off")
	h.key("g")
	h.mustSee("building step 0")
	h.key("w")
	h.mustSee("wrap on", "wrap")
}

// / searches the output; n and N step through the matches.
func TestOutputSearch(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.key("5", "/")
	h.typeText("run")
	h.key("enter")
	h.mustSee("3 lines hold \"run\"")
	h.key("n")
	h.mustSee("match 2 of 3")
	h.key("N", "N")
	h.mustSee("match 3 of 3")
}

// Recall searches all output on every keystroke; enter opens the run at the
// line.
func TestRecallOpensRunAtLine(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.key("ctrl+f")
	h.mustSee("6 Recall", "recall:")
	h.typeText("smtp")
	h.mustSee("go test ./mailer/...:2", "mail_test.go:12: no SMTP", "1 hits")
	h.key("enter")
	if h.m.focus != 4 {
		t.Fatalf("focus %d, want the output pane", h.m.focus)
	}
	h.mustSee("5 Output  go test ./mailer/...", "mail_test.go:12: no SMTP")
	// q in the query is text, not quit.
	h.key("ctrl+f", "q")
	if h.quit {
		t.Fatal("q quit while typing a recall query")
	}
}

func waitStored(t *testing.T, st *db.Store, id string, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := st.Run(id); err == nil && r != nil && r.Bytes >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("output never committed")
}

func itoa(i int) string { return strconv.Itoa(i) }

func dbRun(argv []string) model.RunRecord {
	return model.RunRecord{Argv: argv, Actor: "agent", Start: t0}
}
