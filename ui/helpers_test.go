package ui

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
	"github.com/flowdeck/flowdeck/ui/panes/output"
)

// t0 is the fixed clock of every test: ids and timestamps in goldens depend
// on it.
var t0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// clock is a test clock that only moves when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testProject is st's project with the config cfg (no file is read) and
// the clock now (nil: time.Now).
func testProject(st *db.Store, cfg config.Config, now func() time.Time) *project.Project {
	return project.FromStore(st, project.Options{Config: &cfg, Now: now, Warn: io.Discard})
}

func newStore(tb testing.TB) *db.Store {
	tb.Helper()
	st, err := db.Open(filepath.Join(tb.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// demoPlan is a DAG of eight features: two roots, a diamond, a tail.
func demoPlan() model.Plan {
	f := func(id, title string, deps ...string) model.Feature {
		return model.Feature{ID: id, Title: title, DependsOn: deps, Verification: []string{"go test ./" + id + "/..."}}
	}
	return model.Plan{
		Summary:      "Add password reset to the web app",
		Requirements: []string{"links expire after 30 minutes"},
		Features: []model.Feature{
			f("token-store", "Reset token storage"),
			f("mailer", "Reset e-mail"),
			f("reset-api", "Reset endpoints", "token-store", "mailer"),
			f("rate-limit", "Rate limit reset requests", "reset-api"),
			f("reset-ui", "Reset pages", "reset-api"),
			f("audit-log", "Audit log of resets", "reset-api"),
			f("e2e-tests", "End-to-end tests", "reset-ui", "rate-limit"),
			f("docs", "User docs", "reset-ui"),
		},
	}
}

// seeder applies actions with a clock that advances one second per action.
type seeder struct {
	tb  testing.TB
	st  *db.Store
	now time.Time
}

func (s *seeder) do(a model.Action) *db.Outcome {
	s.tb.Helper()
	s.now = s.now.Add(time.Second)
	out, err := s.st.Do(a, "agent", s.now)
	if err != nil {
		s.tb.Fatalf("seed %s: %v", a.Name(), err)
	}
	return out
}

func (s *seeder) pass(id string, scope model.Scope) {
	s.do(model.Validate{Feature: id, Status: model.ValidationPassed, Scope: scope, Command: "go test ./" + id + "/...", Summary: "12 passed", Source: model.SourceReported})
}

func (s *seeder) complete(id string) {
	s.do(model.RunStart{Feature: id})
	s.pass(id, model.ScopeTargeted)
	s.do(model.ReviewFeature{Feature: id, Decision: model.ReviewApproved})
	s.do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted})
}

// scenario seeds a store in a named state (the golden frames' states).
func scenario(tb testing.TB, st *db.Store, name string) {
	tb.Helper()
	s := &seeder{tb: tb, st: st, now: t0.Add(-time.Hour)}
	if name == "empty" {
		return
	}
	s.do(model.PlanStart{Goal: "Password reset"})
	s.do(model.PlanApply{Plan: demoPlan()})
	if name == "planning" {
		return
	}
	s.do(model.PlanApprove{})
	s.complete("token-store")
	s.complete("mailer")
	switch name {
	case "running":
		s.do(model.RunStart{Feature: "reset-api"})
		addRuns(tb, st)
	case "review":
		s.do(model.RunStart{Feature: "reset-api"})
		s.pass("reset-api", model.ScopeTargeted)
	case "blocked":
		s.do(model.RunStart{Feature: "reset-api"})
		s.do(model.RunComplete{Feature: "reset-api", Outcome: model.OutcomeBlocked, Summary: "needs an SMTP sandbox"})
		if _, err := st.Do(model.RunStart{}, "agent", s.now.Add(time.Second)); err == nil {
			tb.Fatal("run start should block the session")
		}
	case "completed":
		for _, id := range []string{"reset-api", "rate-limit", "reset-ui", "audit-log", "e2e-tests"} {
			s.complete(id)
		}
		s.do(model.RunStart{Feature: "docs"})
		s.pass("docs", model.ScopeBroad)
		s.do(model.ReviewFeature{Feature: "docs", Decision: model.ReviewApproved})
		s.do(model.ReviewFinal{Decision: model.ReviewApproved})
		s.do(model.RunComplete{Feature: "docs", Outcome: model.OutcomeCompleted})
	default:
		tb.Fatalf("unknown scenario %q", name)
	}
}

// harness drives the root model without a terminal: it runs the commands
// Update returns (synchronously, with a timeout) and feeds their messages
// back, and it records the poll ticks instead of sleeping, so a test fires
// them when it wants.
type harness struct {
	tb    testing.TB
	m     *Model
	st    *db.Store
	clk   *clock
	ticks []func(time.Time) tea.Msg
	quit  bool
	raw   []string
	inbox chan tea.Msg
	// inFlight counts the commands async started that have not returned:
	// the harness waits for them before the project is removed.
	inFlight sync.WaitGroup
}

func newHarness(tb testing.TB, st *db.Store, w, h int, cfg config.Config) *harness {
	tb.Helper()
	if cfg.Bell == "" {
		cfg = config.Default()
		cfg.Theme = "dark"
	}
	return newHarnessOpts(tb, st, w, h, cfg, Options{NoColor: true})
}

// newColorHarness draws in colour: theme is the config's (dark, light, auto).
func newColorHarness(tb testing.TB, st *db.Store, w, h int, theme string) *harness {
	tb.Helper()
	cfg := config.Default()
	cfg.Theme = theme
	return newHarnessOpts(tb, st, w, h, cfg, Options{})
}

func newHarnessOpts(tb testing.TB, st *db.Store, w, h int, cfg config.Config, opts Options) *harness {
	tb.Helper()
	clk := &clock{now: t0}
	m := New(testProject(st, cfg, clk.Now), opts)
	hs := &harness{tb: tb, m: m, st: st, clk: clk}
	// Engine goroutines (flows the test started) and the commands pump
	// left running (the load a flow's end starts, a poll) end before the
	// project directory is removed: a read in flight re-creates the
	// store's lock file in .flow, and the removal fails ("directory not
	// empty"). Waited for as long as a loaded machine needs (the
	// cockpit's own quitWait is what a person waits at q, too short a
	// backstop here).
	tb.Cleanup(func() {
		m.shutdown(2 * time.Minute)
		hs.settle(2 * time.Minute)
	})
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		hs.ticks = append(hs.ticks, fn)
		return nil
	}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	// Prompts that appear by themselves ignore keys for a moment; tests
	// that are not about that step past it.
	clk.Add(time.Second)
	return hs
}

func (h *harness) send(msg tea.Msg) {
	h.tb.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// run executes cmd and everything it leads to.
func (h *harness) run(cmd tea.Cmd) {
	h.tb.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(60 * time.Second):
			h.tb.Fatal("a command did not return within 60s (a backstop: on a loaded machine a write can wait its turn for seconds)")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			h.quit = true
		case tea.RawMsg:
			h.raw = append(h.raw, msg.Msg.(string))
		default:
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// tick fires the poll ticks scheduled so far (each schedules the next).
func (h *harness) tick() {
	h.tb.Helper()
	ticks := h.ticks
	h.ticks = nil
	for _, fn := range ticks {
		h.send(fn(h.clk.Now()))
	}
}

// key presses keys: single characters, or names such as "enter", "esc",
// "tab", "ctrl+c".
func (h *harness) key(ks ...string) {
	h.tb.Helper()
	for _, k := range ks {
		h.send(uitest.Key(k))
	}
}

// typeText types each rune as a key press.
func (h *harness) typeText(s string) {
	h.tb.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// frame is the frame as drawn, SGR sequences and all.
func (h *harness) frame() string { return h.m.View().Content + "\n" }

// screen is the frame as plain text (SGR stripped, trailing blanks trimmed).
func (h *harness) screen() string {
	return uitest.Plain(h.m.View().Content)
}

func (h *harness) mustSee(parts ...string) {
	h.tb.Helper()
	scr := h.screen()
	for _, p := range parts {
		if !strings.Contains(scr, p) {
			h.tb.Fatalf("screen lacks %q:\n%s", p, scr)
		}
	}
}

func (h *harness) mustNotSee(parts ...string) {
	h.tb.Helper()
	scr := h.screen()
	for _, p := range parts {
		if strings.Contains(scr, p) {
			h.tb.Fatalf("screen shows %q:\n%s", p, scr)
		}
	}
}

func active(tb testing.TB, st *db.Store) *model.Session {
	tb.Helper()
	s, err := st.Active()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func noTick(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func click(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}

// addRun stores a finished run (exit code given) or, with running, one that
// is still printing; output is written raw and indexed line by line.
func addRun(tb testing.TB, st *db.Store, at time.Time, argv []string, feature, out string, exit int, running bool) string {
	tb.Helper()
	rec := model.RunRecord{Argv: argv, Feature: feature, Actor: "agent", Cwd: "/project", Start: at}
	w, err := st.StartRun(rec)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeRaw(w, []byte(out)); err != nil {
		tb.Fatal(err)
	}
	// Index what a person sees, as capture does: the parsed plain lines.
	var p output.Parser
	lines := p.Feed([]byte(out))
	if l, ok := p.Flush(); ok {
		lines = append(lines, l)
	}
	for _, l := range lines {
		indexLine(w, l.Plain)
	}
	if running {
		tb.Cleanup(func() { _, _ = w.Finish(rec, 0) })
		// The writer commits every 100 ms: wait until the output is stored.
		deadline := time.Now().Add(60 * time.Second)
		for {
			r, err := st.Run(w.ID())
			if err == nil && r != nil && r.Bytes >= int64(len(out)) {
				break
			}
			if time.Now().After(deadline) {
				tb.Fatal("running output never committed")
			}
			time.Sleep(10 * time.Millisecond)
		}
		return w.ID()
	}
	rec.Outcome, rec.ExitCode, rec.Duration = "exited", exit, 2100*time.Millisecond
	if exit == 0 {
		rec.Summary = "ok"
	} else {
		rec.Summary = fmt.Sprintf("failed (exit %d)", exit)
	}
	if _, err := w.Finish(rec, 0); err != nil {
		tb.Fatal(err)
	}
	return w.ID()
}

// addRuns gives a scenario a realistic runs list: two finished test runs and
// one that is still printing, coloured and with a progress line.
func addRuns(tb testing.TB, st *db.Store) {
	tb.Helper()
	addRun(tb, st, t0.Add(-30*time.Minute), []string{"go", "test", "./token-store/..."}, "token-store",
		"=== RUN   TestIssue\n--- PASS: TestIssue (0.01s)\nok  \tpw/token-store\t0.02s\n", 0, false)
	addRun(tb, st, t0.Add(-20*time.Minute), []string{"go", "test", "./mailer/..."}, "mailer",
		"--- FAIL: TestSend (0.00s)\n    mail_test.go:12: no SMTP\nFAIL\tpw/mailer\t0.01s\n", 1, false)
	addRun(tb, st, t0.Add(-10*time.Minute), []string{"go", "test", "./reset-api/..."}, "reset-api",
		"\x1b]0;go test\x07=== RUN   TestReset\n\x1b[32m--- PASS: TestReset (0.02s)\x1b[0m\n=== RUN   TestExpiry\n"+
			"downloading fixtures 10%\rdownloading fixtures 55%\rdownloading fixtures 100%\n"+
			"\x1b[31m--- FAIL: TestExpiry (0.00s)\x1b[0m\n    reset_test.go:40: token expired too early\n=== RUN   TestRateLimit\n", 0, true)
}

// async runs cmd's tree in the background: every command gets its own
// goroutine and its message goes to the inbox, which pump feeds to Update.
// For commands that run for a while (a job) while the test keeps pressing
// keys.
func (h *harness) async(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if h.inbox == nil {
		h.inbox = make(chan tea.Msg, 256)
	}
	h.inFlight.Add(1)
	go func() {
		defer h.inFlight.Done()
		h.inbox <- cmd()
	}()
}

// settle waits up to d for the commands async started (a load, a poll)
// to return, dropping their messages: the test is over, and a read still
// in flight would re-create the store's lock file in a project being
// removed.
func (h *harness) settle(d time.Duration) {
	h.tb.Helper()
	if h.inbox == nil {
		return
	}
	idle := make(chan struct{})
	go func() { h.inFlight.Wait(); close(idle) }()
	deadline := time.After(d)
	for {
		select {
		case <-idle:
			return
		case <-h.inbox:
		case <-deadline:
			h.tb.Errorf("commands still running %v after the test", d)
			return
		}
	}
}

// keyAsync presses a key and runs what it leads to in the background.
func (h *harness) keyAsync(k string) {
	h.tb.Helper()
	_, cmd := h.m.Update(uitest.Key(k))
	h.async(cmd)
}

// pump feeds inbox messages to the model (running their commands in the
// background too) until cond holds, failing after d.
func (h *harness) pump(d time.Duration, what string, cond func() bool) {
	h.tb.Helper()
	// d is a backstop, not a timing claim: a loaded machine takes longer.
	deadline := time.After(max(d, time.Minute))
	for !cond() {
		select {
		case msg := <-h.inbox:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					h.async(c)
				}
			case tea.QuitMsg:
				h.quit = true
			case tea.RawMsg:
				h.raw = append(h.raw, msg.Msg.(string))
			default:
				_, next := h.m.Update(msg)
				h.async(next)
			}
		case <-time.After(20 * time.Millisecond):
			// Polls are driven by hand: fire them while waiting.
			ticks := h.ticks
			h.ticks = nil
			for _, fn := range ticks {
				h.async(func() tea.Msg { return fn(h.clk.Now()) })
			}
		case <-deadline:
			h.tb.Fatalf("waited %v for %s:\n%s", d, what, h.screen())
		}
	}
}

// storeOf is a store on the cockpit's project database, for tests that
// write to it behind the cockpit's back (as another process would).
func storeOf(tb testing.TB, m *Model) *db.Store {
	tb.Helper()
	st, err := db.Open(m.p.DatabasePath(), db.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}
