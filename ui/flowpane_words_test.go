package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/internal/hostile"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// Issue 23: the flow pane speaks to a person, not in the engine's terms.

// reviewerSays is a reviewer agent that reads its prompt and answers as a
// real one does: some words, then its JSON in a fence.
func reviewerSays(answer string) config.Config {
	cfg := darkConfig() // a zero config would be replaced by the default, without agents
	script := "cat >/dev/null; printf '%s\\n' 'I read the change.' '```json' \"$1\" '```'"
	cfg.Agents = map[string]config.Agent{"reviewer": {Command: []string{"sh", "-c", script, "reviewer", answer}}}
	return cfg
}

// paneText is the flow pane's frame as the screen shows it.
func paneText(h *harness) string {
	r := h.m.lay.Rects[layout.Flow]
	lines := strings.Split(h.screen(), "\n")
	var out []string
	for y := r.Y; y < r.Y+r.H && y < len(lines); y++ {
		out = append(out, ansi.Cut(lines[y], r.X, r.X+r.W))
	}
	return strings.Join(out, "\n")
}

// A real run of review.md — plumbing steps storing JSON, a reviewer agent
// answering JSON, a decision — read in the flow pane: the steps by their
// headings, the position among the steps a person sees, what the run works
// on in words, the agent's answer as its fields. Golden frames at 80x24
// and 120x40.
func TestFlowPaneSpeaksWords(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			st := newStore(t)
			h := newHarness(t, st, size[0], size[1], reviewerSays(`{"verdict": "approved", "findings": ["name the flag", "log the retry"]}`))
			h.startFlow("/flow " + testFlow(t, "review.md") + " reset-api")
			h.waitScreen("the decision prompt", "Decision · review-1", "Approve reset-api?")
			h.clk.Add(time.Second)
			h.key("esc") // later: the pane shows under it
			h.waitScreen("the waiting run", "review-1 · waiting", "answer of Review the change")
			pane := paneText(h)
			for _, want := range []string{
				"step 3 of 3: Your review",                      // a position among what a person sees
				"Verify the whole project", "Review the change", // headings, not identifiers
				"feature: reset-api", "verdict: approved", "findings: name the flag; log the retry",
				"waiting for your decision: Approve reset-api?",
			} {
				if !strings.Contains(pane, want) {
					t.Errorf("the flow pane lacks %q:\n%s", want, pane)
				}
			}
			for _, bad := range []string{"verify-broad", "review-agent", "step 5/7", "5/7", "steps run", "more", "{", "}", "```", `"`, "exec =", "status", "started"} {
				if strings.Contains(pane, bad) {
					t.Errorf("the flow pane shows the engine's %q:\n%s", bad, pane)
				}
			}
			golden.RequireEqual(t, pane)
		})
	}
}

// Before any flow runs, the pane says how to start one.
func TestFlowPaneEmptyStateSaysHowToStart(t *testing.T) {
	st := newStore(t)
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key("7")
	h.mustSee("no flow is running", ":/flow NAME", "flowdeck flows run NAME")
}

// A hostile flow file and agent — a step heading, an argument, a stored
// variable and an answer carrying every terminal trick — cannot break the
// screen: the frame holds no escape but SGR, every line keeps its width
// and the title stays on its line.
func TestFlowPaneHostileWords(t *testing.T) {
	c := hostile.Corpus
	js := func(s string) string { // c as a JSON string's content
		var b strings.Builder
		for _, r := range s {
			switch {
			case r == '"' || r == '\\':
				b.WriteString(`\` + string(r))
			case r < 0x20 || r >= 0x7f && r < 0xa0:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	src := "---\nliterate: true\nargs: [feature]\n---\n\n" +
		"```yaml {config}\nstep: gather\n```\n\n```sh {exec mode=store}\nprintf '%s\\n' \"$FLOWDECK_HOSTILE\"\n```\n\n---\n\n" +
		"```yaml {config}\nstep: review-agent\nagent: reviewer\nparse:\n  verdict: string\n  findings: array\n```\n\n## " + c + "\n\nReview $feature.\n\n---\n\n" +
		"```yaml {config}\nstep: confirm\ndecision:\n  prompt: Go?\n  options:\n    - id: go\n      description: go\n```\n\n## " + c + " too\n\n$verdict\n"
	file := filepath.Join(t.TempDir(), "evil.md")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FLOWDECK_HOSTILE", `{"evil": "`+js(c)+`", "nested": {"x": "`+js(c)+`"}}`)
	st := newStore(t)
	w, hgt := 120, 40
	h := newHarness(t, st, w, hgt, reviewerSays(`{"verdict": "`+js(c)+`", "findings": ["`+js(c)+`", "`+js(c+"\n"+c)+`"]}`))
	h.startFlow("/flow " + file + " feat")
	h.waitScreen("the decision prompt", "Decision · evil-1")
	h.clk.Add(time.Second)
	h.key("esc")
	h.waitScreen("the waiting run", "evil-1 · waiting", "answer of Marker")
	v := h.m.View()
	if err := hostile.Check([]byte(v.Content), true); err != nil {
		t.Errorf("frame: %v", err)
	}
	lines := strings.Split(v.Content, "\n")
	if len(lines) != hgt {
		t.Errorf("%d lines, want %d", len(lines), hgt)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, lw, w, ansi.Strip(l))
		}
	}
	pane := paneText(h)
	// The hostile heading is the step's title, on the header's one line.
	header := strings.Split(pane, "\n")[1]
	if !strings.Contains(header, "step 2 of 2: Marker") {
		t.Errorf("the header does not name the step by its heading: %q\n%s", header, pane)
	}
	if !strings.Contains(pane, "verdict: ") || !strings.Contains(pane, "findings: ") {
		t.Errorf("the answer is not shown as words:\n%s", pane)
	}
}
