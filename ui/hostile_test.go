package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/internal/hostile"
	"github.com/flowdeck/flowdeck/model"
)

// hostileSeed fills a store with the corpus wherever an agent, a flow file
// or a command can write: goal, plan, feature titles, notes, evidence,
// findings, a run's argv and output, a flow's step names, prompt and
// decision.
func hostileSeed(t *testing.T, st *db.Store) {
	c := hostile.Corpus
	s := &seeder{tb: t, st: st, now: t0.Add(-time.Hour)}
	s.do(model.PlanStart{Goal: c})
	s.do(model.PlanApply{Plan: model.Plan{Summary: c, Overview: c, Requirements: []string{c}, Decisions: []string{c},
		Features: []model.Feature{
			{ID: "evil", Title: c, Summary: c, Files: []string{c}, Verification: []string{"true"}},
			{ID: "next", Title: c, DependsOn: []string{"evil"}},
		}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "evil"})
	s.do(model.AddNote{Text: c})
	s.do(model.Validate{Feature: "evil", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: c, Summary: c, Source: model.SourceReported})
	s.do(model.ReviewFeature{Feature: "evil", Decision: model.ReviewNeedsFix, Findings: []string{c}})
	// The plan's verification is the contract: its command has evidence too.
	s.do(model.Validate{Feature: "evil", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "true", Source: model.SourceReported})
	s.do(model.Validate{Feature: "evil", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: c, Summary: c, Source: model.SourceReported})
	addRun(t, st, t0.Add(-2*time.Minute), []string{"printf", c}, "evil", c+"\n"+c+"\n", 1, false)

	step := yamlQuote(c)
	src := []byte("---\nliterate: true\ndescription: " + step + "\n---\n\n# " + c + "\n\n" +
		"```yaml {config}\nstep: " + step + "\ndecision:\n  prompt: " + step + "\n  options:\n    - id: go\nnext: done\n```\n\n" + c + "\n\n---\n\n" +
		"```yaml {config}\nstep: done\nstop: true\n```\n\nend\n")
	f, err := flowfile.Parse("evil.md", src)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.ReserveFlowRunID("evil")
	if err != nil {
		t.Fatal(err)
	}
	// The run's process holds its lock: the cockpit sees it executing.
	lockPath := filepath.Join(st.Dir(), "flowruns", id+".lock")
	os.MkdirAll(filepath.Dir(lockPath), 0o755)
	lf, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
	t.Cleanup(func() { lf.Close() })
	at := t0.Add(-time.Minute)
	if _, err := st.CreateFlowRun(&model.FlowRun{ID: id, Flow: "evil", Source: ".flow/flows/evil.md", Hash: f.Hash, Text: f.Source,
		Args: []string{c}, MaxSteps: 100}, "test", map[string]any{"x": c, "feature": "evil"}, "human", at); err != nil {
		t.Fatal(err)
	}
	stepName := f.Steps[0].Name
	if _, err := st.AppendFlowEvents(id, "human", at, model.FlowEvent{Type: model.FlowEvPrompt, Step: stepName, Prompt: c}); err != nil {
		t.Fatal(err)
	}
	d := &model.Decision{FlowRun: id, Flow: "evil", Step: stepName, Kind: model.DecisionChoice, Prompt: c,
		Options: []model.DecisionOption{{ID: "go", Description: c}}}
	if _, _, err := st.CreateDecision(d, "human", at); err != nil {
		t.Fatal(err)
	}
}

// yamlQuote writes s as a YAML double-quoted scalar, every control and
// non-ASCII rune escaped (YAML refuses raw controls).
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r >= 0x7f && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestHostileCorpusNeverReachesTheCockpitFrame draws every pane and mode of
// the cockpit on the hostile store: the frame flowdeck hands the terminal
// holds no ESC but SGR (without blink or conceal), no C1 and no bidi
// control; the terminal title and the notifications hold none at all.
func TestHostileCorpusNeverReachesTheCockpitFrame(t *testing.T) {
	st := newStore(t)
	hostileSeed(t, st)
	cfg := darkConfig()
	cfg.Bell = "osc777"
	h := newHarness(t, st, 160, 48, cfg)
	check := func(what string) {
		t.Helper()
		v := h.m.View()
		if err := hostile.Check([]byte(v.Content), true); err != nil {
			t.Errorf("%s: frame: %v", what, err)
		}
		if err := hostile.Check([]byte(v.WindowTitle), false); err != nil {
			t.Errorf("%s: title %q: %v", what, v.WindowTitle, err)
		}
	}
	check("first frame")
	h.tick()
	for _, k := range []string{"1", "j", "2", "3", "4", "enter", "5", "8", "6", "esc", "7", "tab", "tab", "tab", "?", "esc", ":", "esc", "/", "esc"} {
		h.key(k)
		check("after " + k)
		if k == "8" {
			// The unnamed claim of evil is a row: its flow run (by its
			// feature) waits on the decision whose prompt is the corpus,
			// and its last output line is the corpus too.
			h.mustSee("8 Agents", "(unnamed)", "waiting for a decision")
		}
	}
	h.mustSee("Marker")
	for _, raw := range h.raw {
		// A notification is an OSC by design: its text must be clean.
		body := strings.TrimSuffix(strings.TrimPrefix(raw, "\x1b]777;notify;"), "\x07")
		if err := hostile.Check([]byte(body), false); err != nil {
			t.Errorf("notification %q: %v", raw, err)
		}
	}
}

// A note quoting foreign text (a run's error) stays one line per note line:
// a newline or an escape in it cannot push the frame out of shape.
func TestNoteQuotingForeignTextKeepsFrame(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 100, 30, zeroConfig())
	h.send(jobMsg{job: &job{label: "make"}, err: errors.New("boom\n\x1b[41mred\x1b[0m\ttail")})
	lines := strings.Split(strings.TrimSuffix(h.frame(), "\n"), "\n")
	if len(lines) != 30 {
		t.Fatalf("frame has %d lines, want 30:\n%s", len(lines), h.screen())
	}
	if f := h.frame(); strings.Contains(f, "\x1b[41m") || !strings.Contains(h.screen(), "make failed: boom") {
		t.Fatalf("note drew the foreign SGR or lost the text:\n%q", f)
	}
}
