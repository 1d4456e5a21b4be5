package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// Runs that arrive while an older run is selected are counted in the runs
// pane's frame, "↑ N new", until the person goes back to the top.
func TestRunsPaneCountsNewRuns(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("4", "j") // an older run
	addRun(t, st, t0.Add(time.Minute), []string{"go", "vet", "./..."}, "", "ok\n", 0, false)
	addRun(t, st, t0.Add(2*time.Minute), []string{"go", "build", "./..."}, "", "ok\n", 0, false)
	h.tick()
	h.mustSee("↑ 2 new · run 4 of 5")
	h.key("g")
	h.mustNotSee("new ·")
}

// A status message goes away after a while; an error stays longer.
func TestNotesExpire(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("5", "w")
	h.mustSee("wrap on")
	h.clk.Add(noteTTL + time.Second)
	h.tick()
	h.mustNotSee("wrap on")
	h.key("1", "g", "s", "y") // refused: an error
	h.mustSee("refused (feature_already_active)")
	h.clk.Add(noteTTL + time.Second)
	h.tick()
	h.mustSee("refused (feature_already_active)")
	h.clk.Add(errNoteTTL)
	h.tick()
	h.mustNotSee("refused")
}

// addInternalRun stores a finished run tagged as a flow's plumbing.
func addInternalRun(t *testing.T, st *db.Store, at time.Time, argv []string, out string) string {
	t.Helper()
	rec := model.RunRecord{Argv: argv, Actor: "flow", Cwd: "/project", Start: at, Internal: true}
	w, err := st.StartRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(w, []byte(out))
	indexLine(w, strings.TrimSpace(out))
	rec.Outcome, rec.Summary = "exited", "ok"
	if _, err := w.Finish(rec, 0); err != nil {
		t.Fatal(err)
	}
	return w.ID()
}

// The flows' plumbing runs are hidden from the runs pane and recall until i
// shows them.
func TestInternalRunsHidden(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	addInternalRun(t, st, t0, []string{"sh", "-c", "result=$(flowdeck --json flow status)"}, "plumbingmarker\n")
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.mustNotSee("result=$(flowdeck")
	h.key("ctrl+f")
	h.typeText("plumbingmarker")
	h.mustSee("0 hits")
	h.key("esc", "4", "i")
	h.mustSee("result=$(flowdeck", "internal runs shown")
	h.key("ctrl+f", "backspace")
	h.typeText("r")
	h.mustSee("1 hits")
}

// A ZWJ emoji sequence in a title cannot move the frame's right border.
func TestZWJEmojiKeepsBorder(t *testing.T) {
	th := styles.New(true, false)
	box := layout.Box(th, " 👩‍💻 dev ", "", []string{"title 👨‍👩‍👧 family ❤️ ok"}, 30, 3, true)
	for _, l := range box {
		if w := layout.Width(l); w != 30 {
			t.Fatalf("line %q is %d cells, want 30", l, w)
		}
		if strings.ContainsAny(l, "\u200d\ufe0f") {
			t.Fatalf("line %q keeps a joiner", l)
		}
	}
}

// The help scrolls back up right after G.
func TestHelpScrollsAfterBottom(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("?", "G")
	last := h.m.hlp.off
	if last == 0 {
		t.Fatal("G did not scroll the help")
	}
	h.key("k")
	if h.m.hlp.off != last-1 {
		t.Fatalf("k after G: offset %d, want %d", h.m.hlp.off, last-1)
	}
}

// The terminal's title is saved before the cockpit sets its own and put
// back after.
func TestTitleRestored(t *testing.T) {
	var b bytes.Buffer
	restore := keepTitle(&b)
	if b.String() != "\x1b[22;0t" {
		t.Fatalf("save: %q", b.String())
	}
	restore()
	if !strings.HasSuffix(b.String(), "\x1b[23;0t") {
		t.Fatalf("restore: %q", b.String())
	}
}

// The final review says the progress once ("completed" is not doubled).
func TestFinalReviewText(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Tiny"})
	s.do(model.PlanApply{Plan: model.Plan{Summary: "one", Features: []model.Feature{{ID: "only", Title: "Only"}}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{})
	s.pass("only", model.ScopeBroad)
	s.do(model.ReviewFeature{Feature: "only", Decision: model.ReviewApproved})
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.mustSee("0/1 feature completed; only, the last, waits for the final review.")
	h.mustNotSee("completed completed")
}

// At 200×60 spare width goes to the feature titles and spare height to the
// output; an empty flow pane gives its room back.
func TestLayoutGivesRoomWhereItIsUsed(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: "Long titles"})
	long := "Rate limit password reset requests per account and per address"
	s.do(model.PlanApply{Plan: model.Plan{Summary: "s", Features: []model.Feature{
		{ID: "rate-limit", Title: long},
		{ID: "tokens", Title: "Token storage"},
	}}})
	h := newHarness(t, st, 200, 60, zeroConfig())
	h.mustSee(long)
	l := h.m.lay
	if w := l.Rects[layout.Features].W; w <= 80 {
		t.Fatalf("features %d wide at 200 columns", w)
	}
	if out, det := l.Rects[layout.Output].H, l.Rects[layout.Detail].H; out <= det {
		t.Fatalf("output %d rows, detail %d", out, det)
	}
	h.m.slot = layout.Flow // no flow run: the slot shows the output
	h.send(windowSize(200, 60))
	if h.m.lay.Rects[layout.Output].Empty() {
		t.Fatal("an empty flow pane took the output's place")
	}
}

// A flow's exec blocks, printing into its prompt or its variables alike,
// are its plumbing: the runs pane lists them only after i, as the flow's
// runs, not the person's who started it.
func TestFlowExecBlocksArePlumbing(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	// Narrow: the runs pane is the one pane below the features, the flow
	// pane (which shows the blocks' output) is not on screen.
	h := newHarness(t, st, 110, 30, zeroConfig())
	h.startFlow("/flow " + testFlow(t, "plumbing.md"))
	h.pump(10*time.Second, "the flow to finish", func() bool { return len(h.m.flowJobs) == 0 })
	h.pump(10*time.Second, "both exec runs, finished, in the cockpit", func() bool {
		n := 0
		for _, r := range h.m.allRuns {
			if r.FlowRun != "" && r.Outcome == "exited" {
				n++
			}
		}
		return n == 2
	})
	h.key("4")
	h.mustSee("go test ./reset-api/...")
	h.mustNotSee("plumbing-marker")
	h.key("i")
	h.mustSee("echo stdout-plumbing-marker", "store-plumbin", "internal runs shown")
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "plumbing-marker") && (!strings.Contains(l, "flow plumbing") || strings.Contains(l, "human")) {
			t.Errorf("a plumbing run is not labelled as the flow's: %q", l)
		}
	}
}

// An agent's run shows as the agent's command, not as the engine's stdin
// wrapper around it, and as the agent's.
func TestAgentRunShowsItsCommand(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	rec := model.RunRecord{Argv: []string{"sh", "-c", model.PromptStdin, "agent", "claude", "-p"}, Actor: "worker-1",
		Cwd: "/project", Start: t0, FlowRun: "run-1"}
	w, err := st.StartRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.Outcome = "exited"
	if _, err := w.Finish(rec, 0); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 110, 30, zeroConfig())
	h.key("4")
	h.mustSee("claude -p < prompt", "worker-1")
	h.mustNotSee("FLOWDECK_PROMPT_FILE")
}
