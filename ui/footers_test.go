package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
	"github.com/flowdeck/flowdeck/ui/panes/diffview"
)

// footerCase opens a dialog; each key its footer shows is then pressed on a
// fresh copy and must do what the footer says.
type footerCase struct {
	name string
	open func(t *testing.T) (*harness, *db.Store)
	// typed is text typed into the dialog's field before a key that sends.
	typed string
}

// footerKey is a footer's key as a key press.
func footerKey(k string) tea.KeyPressMsg {
	switch k {
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	}
	return uitest.Key(k)
}

// footerChecks say, by the words of a footer, what must have happened
// after its key: "" when it did.
var footerChecks = map[string]func(h *harness, st *db.Store, before, after string) string{
	"approve": func(h *harness, st *db.Store, _, _ string) string {
		for _, f := range active(h.tb, st).Plan.Features {
			if n := len(f.Reviews); n > 0 && f.Reviews[n-1].Decision == model.ReviewApproved && f.Reviews[n-1].Actor == "human" {
				return ""
			}
		}
		return "no approved review was recorded"
	},
	"needs fix": func(h *harness, _ *db.Store, _, _ string) string {
		if d, ok := h.m.top().(*findingsDialog); !ok || d.decision != model.ReviewNeedsFix {
			return "the needs-fix findings dialog did not open"
		}
		return ""
	},
	"block": func(h *harness, _ *db.Store, _, _ string) string {
		if d, ok := h.m.top().(*findingsDialog); !ok || d.decision != model.ReviewBlocked {
			return "the block findings dialog did not open"
		}
		return ""
	},
	"later":  closedUnanswered,
	"cancel": closedUnanswered,
	"send":   stored("nothing was stored"),
	"back to the review": func(h *harness, _ *db.Store, _, _ string) string {
		if _, ok := h.m.top().(*reviewDialog); !ok {
			return "the review dialog is not back"
		}
		return ""
	},
	"yes": stored("y stored nothing"),
	"no":  closedUnanswered,
	"quit": func(h *harness, _ *db.Store, _, _ string) string {
		if !h.quit {
			return "the cockpit did not quit"
		}
		return ""
	},
	"stay": func(h *harness, _ *db.Store, _, _ string) string {
		if h.quit || h.m.top() == nil {
			return "it did not stay (quit, or lost the dialog under the question)"
		}
		return ""
	},
	"choose": stored("choosing an option stored nothing"),
	"one file": func(h *harness, _ *db.Store, _, _ string) string {
		if c := h.m.shownChange(); c == nil || c.view.Mode() != diffview.ModeFile {
			return "no file's diff shows"
		}
		return ""
	},
	"next file": func(h *harness, _ *db.Store, _, _ string) string {
		if c := h.m.shownChange(); c == nil || c.view.Selected() != 1 {
			return "the second file is not the one shown"
		}
		return ""
	},
	"list files": func(h *harness, _ *db.Store, _, _ string) string {
		if c := h.m.shownChange(); c == nil || c.view.Mode() != diffview.ModeList || h.m.top() == nil {
			return "the files are not listed in the dialog"
		}
		return ""
	},
	"evidence": func(h *harness, _ *db.Store, _, _ string) string {
		if d, ok := h.m.top().(*reviewDialog); !ok || d.showsChange() || !strings.Contains(h.screen(), "validation:") {
			return "the evidence does not show"
		}
		return ""
	},
	"edit at the change": func(h *harness, _ *db.Store, _, _ string) string { return "" }, // checked where pressed
	"note": func(h *harness, _ *db.Store, _, _ string) string {
		if d, ok := h.m.top().(*decisionDialog); !ok || d.f.focus != len(d.f.fields) {
			return "the note does not have the keys"
		}
		return ""
	},
}

// stored: the key stored something; else why says what went wrong.
func stored(why string) func(*harness, *db.Store, string, string) string {
	return func(_ *harness, _ *db.Store, before, after string) string {
		if after == before {
			return why
		}
		return ""
	}
}

// closedUnanswered: the dialog closed and nothing was stored.
func closedUnanswered(h *harness, _ *db.Store, before, after string) string {
	if h.m.top() != nil {
		return "the dialog is still open"
	}
	if after != before {
		return "something was stored"
	}
	return ""
}

func footerCases() []footerCase {
	review := func(t *testing.T) (*harness, *db.Store) {
		st := newStore(t)
		scenario(t, st, "review")
		h := newHarness(t, st, 100, 30, zeroConfig())
		if _, ok := h.m.top().(*reviewDialog); !ok {
			t.Fatalf("no review dialog:\n%s", h.screen())
		}
		return h, st
	}
	return []footerCase{
		{name: "review", open: review},
		{name: "findings from the review", typed: "no test for expiry", open: func(t *testing.T) (*harness, *db.Store) {
			h, st := review(t)
			h.key("x")
			return h, st
		}},
		{name: "findings from the features", typed: "no test for expiry", open: func(t *testing.T) (*harness, *db.Store) {
			h, st := review(t)
			h.key("esc", "x")
			return h, st
		}},
		{name: "reset confirmation", open: func(t *testing.T) (*harness, *db.Store) {
			st := newStore(t)
			scenario(t, st, "running")
			h := newHarness(t, st, 100, 30, zeroConfig())
			h.key("g", "r")
			return h, st
		}},
		{name: "quit question", open: func(t *testing.T) (*harness, *db.Store) {
			h, st := review(t)
			h.key("x")
			h.typeText("unsent")
			h.key("ctrl+c")
			return h, st
		}},
		{name: "review on the change", open: func(t *testing.T) (*harness, *db.Store) {
			h, st := changeProject(t)
			if d, ok := h.m.top().(*reviewDialog); !ok || !d.showsChange() {
				t.Fatalf("no review on the change:\n%s", h.screen())
			}
			return h, st
		}},
		{name: "change dialog", open: func(t *testing.T) (*harness, *db.Store) {
			h, st := changeProject(t)
			h.key("esc", "esc", "d")
			if _, ok := h.m.top().(*changeDialog); !ok {
				t.Fatalf("no change dialog:\n%s", h.screen())
			}
			return h, st
		}},
		{name: "decision", open: func(t *testing.T) (*harness, *db.Store) {
			st := newStore(t)
			pendingDecisions(t, st)
			h := newHarness(t, st, 100, 30, zeroConfig())
			h.clk.Add(time.Second)
			if _, ok := h.m.top().(*decisionDialog); !ok {
				t.Fatalf("no decision dialog:\n%s", h.screen())
			}
			return h, st
		}},
	}
}

// TestDialogFootersAreHonest (issue 23.6): every key a dialog's footer shows
// does what the footer says, in every dialog a newcomer meets first.
func TestDialogFootersAreHonest(t *testing.T) {
	for _, c := range footerCases() {
		t.Run(c.name, func(t *testing.T) {
			h, _ := c.open(t)
			footer := h.m.top().KeyMap(h.m).ShortHelp()
			if len(footer) == 0 {
				t.Fatalf("no footer:\n%s", h.screen())
			}
			for _, b := range footer {
				desc := b.Help().Desc
				t.Logf("%s: %s %s", c.name, b.Help().Key, desc)
				check, ok := footerChecks[desc]
				if !ok {
					t.Errorf("footer %q %q: no check says what it must do", b.Help().Key, desc)
					continue
				}
				h, st := c.open(t)
				if c.typed != "" && (desc == "send") {
					h.typeText(c.typed)
				}
				if !strings.Contains(h.screen(), b.Help().Key+" "+desc) && !strings.Contains(h.screen(), keysLabel(b.Keys())+" "+desc) {
					t.Errorf("footer %q %q is not on screen:\n%s", b.Help().Key, desc, h.screen())
				}
				before := storeState(t, st)
				if desc == "edit at the change" {
					_, cmd := h.m.Update(footerKey(b.Keys()[0]))
					if h.nextExec(cmd) == nil {
						t.Errorf("%s: footer says %q %q, but no editor ran", c.name, b.Help().Key, desc)
					}
					continue
				}
				h.send(footerKey(b.Keys()[0]))
				if why := check(h, st, before, storeState(t, st)); why != "" {
					t.Errorf("%s: footer says %q %q, but %s:\n%s", c.name, b.Help().Key, desc, why, h.screen())
				}
			}
		})
	}
}

// changeProject is a git project where the feature greet changed two files
// and waits for its review: the review dialog opens on the change.
func changeProject(t *testing.T) (*harness, *db.Store) {
	t.Helper()
	dir, st, do := gitProject(t, "footers")
	do(model.PlanStart{Goal: "greet"})
	do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "greet", Title: "Greet", Verification: []string{"go test ./..."}}, {ID: "more", Title: "More"}}}})
	do(model.PlanApprove{})
	do(model.RunStart{Feature: "greet"})
	os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package main\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "wave.go"), []byte("package main\n\n// Wave waves.\nfunc Wave() string { return \"o/\" }\n"), 0o644)
	do(model.Validate{Feature: "greet", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./...", Source: model.SourceObserved})
	fakeEditor(t)
	h := newHarness(t, st, 160, 48, zeroConfig())
	h.clk.Add(time.Second)
	return h, st
}

func keysLabel(ks []string) string {
	if len(ks) == 0 {
		return ""
	}
	return ks[0]
}
