package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Rebinding in config.toml changes dispatch and help alike.
func TestConfigRebindsKeys(t *testing.T) {
	p := writeConfig(t, "theme = \"dark\"\n[keys]\napprove = [\"A\"]\nquit = [\"ctrl+c\"]\n")
	cfg, errs := config.Load(p)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	st := newStore(t)
	scenario(t, st, "review")
	h := newHarness(t, st, 120, 40, cfg)
	h.mustSee("A approve")
	h.key("a") // no longer bound
	if f := active(t, st).Plan.Feature("reset-api"); len(f.Reviews) != 0 {
		t.Fatalf("a approved although approve is rebound to A")
	}
	h.key("A")
	h.mustSee("review of reset-api: approved")
	h.key("?")
	h.mustSee("A            approve", "ctrl+c       quit")
	h.key("G")
	h.mustSee("keys from " + p)
	h.key("esc", "q")
	if h.quit {
		t.Fatal("q quit although quit is rebound to ctrl+c only")
	}
	h.key("ctrl+c")
	if !h.quit {
		t.Fatal("ctrl+c did not quit")
	}
}

// A broken config file: the error names the file and the line, and the
// cockpit starts with defaults.
func TestBrokenConfigNamesFileAndLine(t *testing.T) {
	p := writeConfig(t, "bell = \"bell\"\n\n[keys]\napprove = [\"a\"\n")
	_, errs := config.Load(p)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), p+":4:") && !strings.Contains(errs[0].Error(), p+":5:") {
		t.Fatalf("errs = %v, want one naming %s and its line", errs, p)
	}
	st := newStore(t)
	scenario(t, st, "review")
	clk := &clock{now: t0}
	// The project reads the file through the one loader.
	t.Setenv("FLOWDECK_CONFIG", p)
	m := New(project.FromStore(st, project.Options{Now: clk.Now}), Options{NoColor: true})
	h := &harness{tb: t, m: m, st: st, clk: clk}
	m.tick = noTick
	h.send(windowSize(120, 40))
	h.run(m.Init())
	clk.Add(1e9)
	h.mustSee("✗ config (defaults used): " + p + ":")
	h.key("a") // defaults still work
	h.mustSee("review of reset-api: approved")
}

// Unknown actions and settings are named with their line; the rest applies.
func TestConfigUnknownNames(t *testing.T) {
	p := writeConfig(t, "bell = \"loud\"\ncolour = 1\n[keys]\napprove = [\"A\"]\nlaunch = [\"L\"]\n")
	cfg, errs := config.Load(p)
	joined := ""
	for _, e := range errs {
		joined += e.Error() + "\n"
	}
	if !strings.Contains(joined, p+":1: bell = \"loud\"") || !strings.Contains(joined, p+":2: unknown setting \"colour\"") {
		t.Fatalf("errors:\n%s", joined)
	}
	st := newStore(t)
	m := New(testProject(st, cfg, nil), Options{NoColor: true})
	if !strings.Contains(strings.Join(m.note.lines, "\n"), p+":5: [keys] unknown action \"launch\"") {
		t.Fatalf("note = %q", m.note.lines)
	}
	if !m.keys.Matches(uitest.Key("A"), "approve") {
		t.Fatal("approve = A did not apply next to a bad entry")
	}
	if cfg.Bell != config.BellBell {
		t.Fatalf("bad bell kept: %q", cfg.Bell)
	}
}

// The command line runs /flow-* actions, completes names and ids, keeps
// history and shows errors inline.
func TestCommandLine(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())

	h.key(":")
	h.typeText("/flow-note checked the logs")
	h.key("enter")
	h.mustSee("✓ note: checked the logs")
	if n := active(t, st).Notes; len(n) == 0 || n[len(n)-1].Text != "checked the logs" {
		t.Fatalf("notes = %+v", n)
	}

	// Unknown command: inline error, the line stays open with the text.
	h.key(":")
	h.typeText("/flow-bogus")
	h.key("enter")
	h.mustSee("✗ unknown command /flow-bogus", ":/flow-bogus")
	h.key("esc")

	// Completion: names, then the reset target, then feature ids.
	h.key(":")
	h.typeText("/flow-rese")
	h.key("tab")
	h.mustSee(":/flow-reset")
	h.typeText("f")
	h.key("tab")
	h.mustSee(":/flow-reset feature")
	h.typeText("reset-")
	h.key("tab")
	h.mustSee("tab: reset-api  reset-ui")
	h.key("tab")
	h.mustSee(":/flow-reset feature reset-api")
	h.key("enter")
	h.mustSee("Reset reset-api?", "Also resets 5 downstream")
	h.key("n")

	// History: up brings back the last line.
	h.key(":", "up")
	h.mustSee(":/flow-reset feature reset-api")
	h.key("up")
	h.mustSee(":/flow-bogus")
	h.key("esc")

	// A refused command shows the structured error.
	h.key(":")
	h.typeText("/flow-session nope")
	h.key("enter")
	h.mustSee("✗ refused (")

	// /run needs a command (jobs_test.go runs some).
	h.key(":")
	h.typeText("/run ")
	h.key("enter")
	h.mustSee("usage: /run CMD")
	h.key("esc")

	// q while typing is text, not quit.
	h.key(":", "q")
	if h.quit {
		t.Fatal("q quit while typing in the command line")
	}
	h.mustSee(":q")
}

// / filters the features fuzzily on every keystroke; esc clears.
func TestFilter(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("/")
	h.typeText("rlim")
	h.mustSee("rate-limit", "1/8 matching")
	h.mustNotSee("audit-log   pending")
	h.key("enter")
	h.mustSee("/rlim")
	h.key("esc")
	h.mustSee("audit-log")
}

// Keys move focus; mouse clicks focus and select; the layout follows the size.
func TestFocusMouseAndResize(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 80, 24, zeroConfig())
	h.key("tab")
	if h.m.focus != 1 {
		t.Fatalf("tab focused %d", h.m.focus)
	}
	h.mustSee("2 Graph", "upstream")
	h.key("shift+tab", "3")
	h.mustSee("3 Detail")
	h.send(windowSize(160, 48))
	if !h.m.lay.Wide {
		t.Fatal("160x48 is not wide")
	}
	h.mustSee("1 Features", "2 Graph", "3 Detail", "4 Runs", "5 Output")
	// Click the graph's first node row (border, summary, level header, node).
	r := h.m.lay.Rects[1]
	h.send(click(r.X+4, r.Y+3))
	if h.m.focus != 1 || h.m.sel != "token-store" {
		t.Fatalf("click: focus %d, selection %q", h.m.focus, h.m.sel)
	}
	// m turns the mouse off: clicks are ignored, text can be selected.
	h.key("m")
	if h.m.View().MouseMode != 0 {
		t.Fatal("mouse still captured")
	}
	h.send(click(1, 4))
	if h.m.focus != 1 {
		t.Fatal("a click focused a pane with the mouse off")
	}
	h.send(windowSize(80, 24))
	h.mustSee("1 Features", "2 Graph")
	_ = model.StateRunnable
}
