package fleetview

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/internal/gittest"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// The tests run the real fleet (package fleet) over real local projects:
// temporary directories with a real store, served in this process as the
// fleet serves every local project, and one transport command that hangs.
// The view is driven by key messages.

// proj is a project of the test fleet: its root and a way to act in it as
// its agent would, behind the fleet's back.
type proj struct {
	root string
	st   *db.Store
	now  time.Time
}

func (p *proj) do(tb testing.TB, a model.Action) {
	tb.Helper()
	p.now = p.now.Add(time.Second)
	pr := project.FromStore(p.st, project.Options{Actor: "agent", Now: func() time.Time { return p.now }, Config: &config.Config{}, Warn: io.Discard})
	res, err := pr.Do(a, 0, false)
	if err != nil || !res.OK {
		tb.Fatalf("%s: %v %+v", a.Name(), err, res.Error)
	}
}

// alpha is a git project whose feature reset-api waits for its review, with
// a change (reset.go) to show.
func alpha(tb testing.TB, parent string) *proj {
	tb.Helper()
	root := gittest.Repo(tb, "alpha: a review waits", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	root = moveUnder(tb, root, parent, "alpha")
	st, err := db.Open(filepath.Join(root, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	p := &proj{root: root, st: st, now: t0.Add(-time.Hour)}
	p.do(tb, model.PlanStart{Goal: "Password reset"})
	p.do(tb, model.PlanApply{Plan: model.Plan{Features: []model.Feature{
		{ID: "token-store", Title: "Reset tokens", Verification: []string{"go test ./..."}},
		{ID: "reset-api", Title: "Reset endpoints", DependsOn: []string{"token-store"}, Verification: []string{"go test ./..."}},
		{ID: "docs", Title: "Docs", DependsOn: []string{"reset-api"}}}}})
	p.do(tb, model.PlanApprove{})
	p.do(tb, model.RunStart{Feature: "token-store"})
	p.do(tb, model.Validate{Feature: "token-store", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./...", Source: model.SourceReported})
	p.do(tb, model.ReviewFeature{Feature: "token-store", Decision: model.ReviewApproved})
	p.do(tb, model.RunComplete{Feature: "token-store", Outcome: model.OutcomeCompleted})
	p.do(tb, model.RunStart{Feature: "reset-api", Agent: "claude"})
	if err := os.WriteFile(filepath.Join(root, "reset.go"), []byte("package main\n\n// Reset sends a reset link.\nfunc Reset() {}\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	p.do(tb, model.Validate{Feature: "reset-api", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./...", Source: model.SourceReported})
	return p
}

// beta is a project whose flow asks the person a question.
func beta(tb testing.TB, parent string) *proj {
	tb.Helper()
	root := filepath.Join(parent, "beta")
	st, err := db.Open(filepath.Join(root, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	p := &proj{root: root, st: st, now: t0.Add(-2 * time.Hour)}
	p.do(tb, model.PlanStart{Goal: "Parser rewrite"})
	p.do(tb, model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "lexer", Title: "Lexer"}, {ID: "parser", Title: "Parser", DependsOn: []string{"lexer"}}}}})
	p.do(tb, model.PlanApprove{})
	p.do(tb, model.RunStart{Feature: "lexer", Agent: "codex"})
	p.now = p.now.Add(time.Minute)
	if _, _, err := st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "Ship the lexer as it is?",
		Options: []model.DecisionOption{{ID: "yes", Description: "ship it"}, {ID: "no", Description: "hold it back"}}}, "agent", t0.Add(-5*time.Minute)); err != nil {
		tb.Fatal(err)
	}
	return p
}

// moveUnder renames a repository made elsewhere to parent/name, so the
// rows name every project under one parent (shown as ~ in the goldens).
func moveUnder(tb testing.TB, dir, parent, name string) string {
	tb.Helper()
	to := filepath.Join(parent, name)
	if err := os.Rename(dir, to); err != nil {
		tb.Fatal(err)
	}
	return to
}

// hanging is a remote project behind a transport that never answers: an
// ssh (a script of that name first on PATH) that waits forever, as one to a
// host that does not respond does.
func hanging(tb testing.TB, name string) fleet.Entry {
	tb.Helper()
	bin := tb.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return fleet.Entry{Name: name, Command: []string{"ssh", "build", "flowdeck", "--dir", "/srv/app", "mcp"}}
}

// world is the test fleet: alpha and beta, and gamma, which hangs.
type world struct {
	parent      string
	alpha, beta *proj
	entries     []fleet.Entry
	f           *fleet.Fleet
}

func newWorld(tb testing.TB, callTimeout time.Duration) *world {
	tb.Helper()
	w := &world{parent: tb.TempDir()}
	w.alpha, w.beta = alpha(tb, w.parent), beta(tb, w.parent)
	w.entries = []fleet.Entry{{Name: "alpha", Dir: w.alpha.root}, {Name: "beta", Dir: w.beta.root}, hanging(tb, "gamma")}
	w.f = fleet.Open(w.entries, fleet.Options{Version: "test", Origin: "fleet@test", CallTimeout: callTimeout, Now: func() time.Time { return t0 }})
	tb.Cleanup(w.f.Close)
	return w
}

// view opens the fleet view on w at w×h, with the projects' parent as home.
func (w *world) view(tb testing.TB, cols, rows int, cfg config.Config) *harness {
	tb.Helper()
	h := newHarness(tb, w.f, w.entries, cols, rows, cfg)
	h.m.home = w.parent
	return h
}

// ready waits until both local projects answer and their waits are queued.
func (h *harness) ready() {
	h.tb.Helper()
	h.pump(time.Minute, "alpha and beta to answer, with their waits", func() bool {
		n := 0
		for _, s := range h.m.statuses {
			if s.Reach == fleet.Reachable && s.Glance != nil {
				n++
			}
		}
		return n == 2 && len(h.m.items) == 2
	})
	// The queue keeps the item selected while older ones arrive above it:
	// which came first depends on which project answered first. Start
	// from the top, as a person who just looked would.
	h.m.queue.Top()
	h.send(nil)
}

// selectItem focuses the queue on the item whose label holds text.
func (h *harness) selectItem(text string) {
	h.tb.Helper()
	for i, it := range h.m.items {
		if strings.Contains(it.Wait.Label+" "+it.Wait.Reason, text) {
			h.m.focus = focusQueue
			h.m.queue.Set(i)
			h.send(nil)
			return
		}
	}
	h.tb.Fatalf("no queue item %q:\n%s", text, h.screen())
}

// The first frame comes from the config alone: every project connecting.
// Then the rows and the queue fill in as the projects answer, the hanging
// one still connecting.
func TestRowsAndQueue(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 80, 24, testConfig())
	first := h.screen()
	for _, want := range []string{"alpha", "beta", "gamma", "connecting…"} {
		if !strings.Contains(first, want) {
			t.Fatalf("the first frame lacks %q:\n%s", want, first)
		}
	}
	h.ready()
	h.waitSee("Password reset", "1/3 done", "Parser rewrite", "working: lexer", "review reset-api", "Ship the lexer", "⚑ 2 waiting")
	if got := h.m.View().WindowTitle; got != "⚑ 2 waiting · flowdeck fleet" {
		t.Fatalf("title %q", got)
	}
	// Oldest first: alpha's review (an hour ago) before beta's question
	// (five minutes ago).
	if len(h.m.items) != 2 || h.m.items[0].Project != "alpha" {
		t.Fatalf("queue order: %+v", h.m.items)
	}
	if len(h.raw) != 0 {
		t.Fatalf("the first load rang: %q", h.raw)
	}
}

// Approving from the queue records the review in alpha's store, as the
// person's, with where it came from; the item leaves the queue.
func TestApproveFromQueue(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 100, 30, testConfig())
	h.ready()
	h.selectItem("review reset-api")
	h.key("enter")
	h.waitSee("Review reset-api · alpha", "+// Reset sends a reset link.")
	h.key("a")
	h.waitSee("✓ alpha: review of reset-api: approved")
	s, err := w.alpha.st.Active()
	if err != nil {
		t.Fatal(err)
	}
	r := lastReview(s, "reset-api")
	if r == nil || r.Decision != model.ReviewApproved || r.Actor != "human" {
		t.Fatalf("alpha's review of reset-api: %+v", r)
	}
	if hi := lastHistory(s, r.Seq); hi == nil || hi.Actor != "human" || hi.Via != "fleet@test" {
		t.Fatalf("the review's history item: %+v", hi)
	}
	h.pump(time.Minute, "the review to leave the queue", func() bool { return len(h.m.items) == 1 })
}

// lastHistory is the session's history item of event seq.
func lastHistory(s *model.Session, seq uint64) *model.HistoryItem {
	for i := range s.Execution.History {
		if s.Execution.History[i].Seq == seq {
			return &s.Execution.History[i]
		}
	}
	return nil
}

func lastReview(s *model.Session, feature string) *model.Review {
	f := s.Plan.Feature(feature)
	if f == nil || len(f.Reviews) == 0 {
		return nil
	}
	return &f.Reviews[len(f.Reviews)-1]
}

// needs fix asks for findings, which go with the review.
func TestNeedsFixWithFindings(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 100, 30, testConfig())
	h.ready()
	h.selectItem("review reset-api")
	h.key("x")
	h.waitSee("Request changes to reset-api · alpha", "findings:")
	h.key("enter")
	h.waitSee("needs_fix needs at least one finding")
	h.typeText("links never expire; no test")
	h.key("enter")
	h.waitSee("✓ alpha: review of reset-api: needs_fix")
	s, err := w.alpha.st.Active()
	if err != nil {
		t.Fatal(err)
	}
	r := lastReview(s, "reset-api")
	if r == nil || r.Decision != model.ReviewNeedsFix || strings.Join(r.Findings, "|") != "links never expire|no test" {
		t.Fatalf("alpha's review: %+v", r)
	}
}

// A decision is answered by its option's number.
func TestAnswerDecision(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 100, 30, testConfig())
	h.ready()
	h.selectItem("Ship")
	h.key("enter")
	h.waitSee("Ship the lexer as it is?", "1 yes", "2 no")
	h.key("tab")
	h.typeText("looks fine")
	h.key("esc", "1")
	h.waitSee("✓ beta: decision")
	ds, err := w.beta.st.Decisions(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Resolution == nil || ds[0].Resolution.Option != "yes" || ds[0].Resolution.Note != "looks fine" ||
		ds[0].Resolution.Actor != "human" || ds[0].Resolution.Via != "fleet@test" {
		t.Fatalf("beta's decision: %+v", ds)
	}
}

// An answer the project changed after the person saw it is refused, and the
// dialog says so; nothing is sent again.
func TestStaleAnswerRefused(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 100, 30, testConfig())
	h.ready()
	h.selectItem("review reset-api")
	h.key("enter")
	h.waitSee("Review reset-api · alpha")
	// The agent validates again behind the fleet's back; the person, who
	// has not seen that yet, approves what they saw.
	w.alpha.do(t, model.Validate{Feature: "reset-api", Status: model.ValidationFailed, Scope: model.ScopeTargeted, Command: "go test ./...", Source: model.SourceReported})
	h.key("a")
	h.waitSee("refused (stale_decision)")
	h.mustSee("Review reset-api · alpha")
	s, err := w.alpha.st.Active()
	if err != nil {
		t.Fatal(err)
	}
	if r := lastReview(s, "reset-api"); r != nil {
		t.Fatalf("a stale approval was recorded: %+v", r)
	}
	h.key("esc")
	h.pump(time.Minute, "the dialog to close", func() bool { return h.m.top() == nil })
}

// A project whose transport hangs stays connecting, then unreachable,
// while the keys keep working: moving, switching boxes, opening and
// answering a dialog of another project.
func TestHangingProjectDoesNotStallKeys(t *testing.T) {
	w := newWorld(t, 3*time.Second)
	h := w.view(t, 100, 30, testConfig())
	h.ready()
	h.key("j", "j", "k", "tab", "j", "k")
	h.selectItem("Ship")
	h.key("enter")
	h.waitSee("Ship the lexer as it is?")
	h.key("2")
	h.waitSee("✓ beta: decision")
	h.waitSee("gamma", "unreachable")
}

// Something new waiting anywhere rings once and counts in the title; the
// first load did not ring.
func TestNewWaitRings(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 100, 30, testConfig())
	h.ready()
	if len(h.raw) != 0 {
		t.Fatalf("the first load rang: %q", h.raw)
	}
	if _, _, err := w.beta.st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "Also the parser?",
		Options: []model.DecisionOption{{ID: "yes"}, {ID: "no"}}}, "agent", t0); err != nil {
		t.Fatal(err)
	}
	h.pump(time.Minute, "the new decision to ring", func() bool { return len(h.m.items) == 3 && len(h.raw) == 1 })
	if h.raw[0] != "\a" {
		t.Fatalf("bell %q", h.raw[0])
	}
	if got := h.m.View().WindowTitle; got != "⚑ 3 waiting · flowdeck fleet" {
		t.Fatalf("title %q", got)
	}
}

// At 40x12 the view still draws every line within the screen.
func TestSmallTerminal(t *testing.T) {
	w := newWorld(t, time.Hour)
	h := w.view(t, 40, 12, testConfig())
	h.ready()
	for _, k := range []string{"", "tab", "enter"} {
		if k != "" {
			h.key(k)
		}
		lines := strings.Split(h.m.View().Content, "\n")
		if len(lines) != 12 {
			t.Fatalf("%d lines at 40x12 after %q:\n%s", len(lines), k, h.screen())
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > 40 {
				t.Fatalf("a line of %d cells at 40x12 after %q:\n%s", ansi.StringWidth(l), k, h.screen())
			}
		}
	}
}

// Text a project sends may be wide, long or hostile: every line of the
// frame stays within the screen and no sequence but SGR reaches it.
func TestHostileTextStaysInItsCells(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "hostile")
	st, err := db.Open(filepath.Join(root, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	p := &proj{root: root, st: st, now: t0.Add(-time.Minute)}
	p.do(t, model.PlanStart{Goal: "\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("界🙂\u200d🙂", 60) + "\u202eevil"})
	p.do(t, model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "f1", Title: "x"}}}})
	p.do(t, model.PlanApprove{})
	if _, _, err := st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "\x1b]52;c;SGVsbG8=\x07" + strings.Repeat("一二三", 200) + "\n\x1b[31mred",
		Options: []model.DecisionOption{{ID: "ok", Description: strings.Repeat("界", 300)}}}, "agent", t0); err != nil {
		t.Fatal(err)
	}
	entries := []fleet.Entry{{Name: "a-very-long-project-name-" + strings.Repeat("x", 30), Dir: root}}
	f := fleet.Open(entries, fleet.Options{Version: "test", CallTimeout: time.Hour, Now: func() time.Time { return t0 }})
	t.Cleanup(f.Close)
	for _, size := range [][2]int{{80, 24}, {40, 12}} {
		h := newHarness(t, f, entries, size[0], size[1], testConfig())
		h.pump(time.Minute, "the hostile project's wait", func() bool { return len(h.m.items) == 1 })
		for _, k := range []string{"", "tab", "enter", "tab"} {
			if k != "" {
				h.key(k)
			}
			frame := h.m.View().Content
			if testing.Verbose() {
				t.Logf("%dx%d after %q:\n%s", size[0], size[1], k, h.screen())
			}
			if strings.Contains(frame, "\x1b]") || strings.Contains(frame, "\x1b[2J") || strings.Contains(frame, "\u202e") {
				t.Fatalf("%dx%d after %q: a foreign sequence reached the frame: %q", size[0], size[1], k, frame)
			}
			lines := strings.Split(frame, "\n")
			if len(lines) != size[1] {
				t.Fatalf("%dx%d after %q: %d lines:\n%s", size[0], size[1], k, len(lines), h.screen())
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Fatalf("%dx%d after %q: a line of %d cells:\n%s", size[0], size[1], k, w, h.screen())
				}
			}
		}
	}
}
