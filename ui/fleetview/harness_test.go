package fleetview

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
)

// t0 is the tests' fixed clock.
var t0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// harness drives the view without a terminal: every command runs in a
// goroutine of its own (the wait on the fleet's Changed channel blocks
// until the fleet changes) and its message goes to the inbox, which pump
// feeds to Update. The clock's ticks are recorded, not slept.
type harness struct {
	tb    testing.TB
	m     *Model
	inbox chan tea.Msg
	raw   []string
	quit  bool
	// inFlight counts the commands that have not returned.
	inFlight sync.WaitGroup
}

func newHarness(tb testing.TB, f Fleet, entries []fleet.Entry, w, h int, cfg config.Config) *harness {
	tb.Helper()
	m := New(f, entries, Options{Config: &cfg, NoColor: true, Now: func() time.Time { return t0 }})
	m.home = ""
	hs := &harness{tb: tb, m: m, inbox: make(chan tea.Msg, 1024)}
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	tb.Cleanup(func() {
		m.stop()
		hs.settle(2 * time.Minute)
	})
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.async(m.Init())
	return hs
}

func testConfig() config.Config {
	c := config.Default()
	c.Theme = "dark"
	c.Bell = config.BellBell
	return c
}

// send updates the model with msg and runs what it returns in the
// background.
func (h *harness) send(msg tea.Msg) {
	h.tb.Helper()
	_, cmd := h.m.Update(msg)
	h.async(cmd)
}

func (h *harness) async(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.inFlight.Add(1)
	go func() {
		defer h.inFlight.Done()
		h.inbox <- cmd()
	}()
}

// pump feeds the inbox to the model until cond holds; d is a backstop
// (at least a minute: a loaded machine is slow), not a timing claim.
func (h *harness) pump(d time.Duration, what string, cond func() bool) {
	h.tb.Helper()
	deadline := time.After(max(d, time.Minute))
	for !cond() {
		select {
		case msg := <-h.inbox:
			h.deliver(msg)
		case <-deadline:
			h.tb.Fatalf("waited for %s:\n%s", what, h.screen())
		}
	}
}

// drain delivers what is in the inbox now, without waiting.
func (h *harness) drain() {
	for {
		select {
		case msg := <-h.inbox:
			h.deliver(msg)
		default:
			return
		}
	}
}

func (h *harness) deliver(msg tea.Msg) {
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
		h.send(msg)
	}
}

// settle waits for the commands still running to return, dropping their
// messages.
func (h *harness) settle(d time.Duration) {
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

// key presses keys by name ("enter", "tab", "a", "ctrl+c").
func (h *harness) key(ks ...string) {
	h.tb.Helper()
	for _, k := range ks {
		h.send(uitest.Key(k))
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen is the frame as plain text, trailing blanks trimmed.
func (h *harness) screen() string {
	return uitest.Plain(h.m.View().Content)
}

func (h *harness) sees(parts ...string) bool {
	scr := h.screen()
	for _, p := range parts {
		if !strings.Contains(scr, p) {
			return false
		}
	}
	return true
}

// waitSee pumps until the screen shows every part.
func (h *harness) waitSee(parts ...string) {
	h.tb.Helper()
	h.pump(time.Minute, "the screen to show "+strings.Join(parts, ", "), func() bool { return h.sees(parts...) })
}

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func (h *harness) mustSee(parts ...string) {
	h.tb.Helper()
	if !h.sees(parts...) {
		h.tb.Fatalf("screen lacks one of %q:\n%s", parts, h.screen())
	}
}
