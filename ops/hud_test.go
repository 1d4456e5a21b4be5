package ops

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

type seed struct {
	t   *testing.T
	st  *db.Store
	now time.Time
}

func newSeed(t *testing.T) *seed {
	st, err := db.Open(filepath.Join(t.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return &seed{t: t, st: st, now: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
}

// do applies an action; refused ones are fine (a run start that blocks).
func (s *seed) do(a model.Action) {
	s.t.Helper()
	s.now = s.now.Add(time.Second)
	if _, err := s.st.Do(a, "agent", s.now); err != nil {
		if _, refused := model.AsError(err); !refused {
			s.t.Fatal(err)
		}
	}
}

func (s *seed) hud(format string) string {
	s.t.Helper()
	h, err := BuildHUD(s.st)
	if err != nil {
		s.t.Fatal(err)
	}
	out, err := h.Render(format)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

func checkLimits(t *testing.T, format, out string) {
	t.Helper()
	if len(out) > HUDMaxBytes {
		t.Errorf("%s: %d bytes > %d:\n%s", format, len(out), HUDMaxBytes, out)
	}
	if n := strings.Count(out, "\n"); n > HUDMaxLines || !strings.HasSuffix(out, "\n") {
		t.Errorf("%s: %d lines:\n%s", format, n, out)
	}
	if format == "json" {
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("json: %v", err)
		}
	}
}

func TestHUDSaysWhatWaits(t *testing.T) {
	s := newSeed(t)
	if out := s.hud("text"); out != "flowdeck\nstatus: no active session\nnext: flowdeck flow plan start GOAL\n" {
		t.Fatalf("no session:\n%s", out)
	}
	s.do(model.PlanStart{Goal: "Add password reset"})
	s.do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{
		{ID: "token-store", Title: "Tokens", Verification: []string{"go test ./auth/...", "go vet ./auth/..."}},
		{ID: "mailer", Title: "Mailer"},
		{ID: "reset-api", Title: "API", DependsOn: []string{"token-store", "mailer"}},
	}}})
	if out := s.hud("text"); !strings.Contains(out, "waits: plan approval\n") {
		t.Fatalf("planning:\n%s", out)
	}
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "token-store"})
	s.do(model.Validate{Feature: "token-store", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go vet ./auth/...", Summary: "✓ go vet", Source: model.SourceObserved})
	// The plan's verification is the contract: one command's evidence
	// does not make the feature wait for its review.
	if out := s.hud("text"); !strings.Contains(out, "(in_progress)") || !strings.Contains(out, "next: flowdeck run --feature token-store --scope targeted -- go test ./auth/...\n") {
		t.Fatalf("one of two verification commands:\n%s", out)
	}
	s.do(model.Validate{Feature: "token-store", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./auth/...", Summary: "✓ go test (12 passed)", Source: model.SourceObserved})
	want := `flowdeck: Add password reset
status: running, plan approved, 0/3 features completed
active: token-store — Tokens (awaiting_review)
  verify: go test ./auth/...
  verify: go vet ./auth/...
waits: review of token-store (validation passed)
last validation: token-store targeted passed (observed): ✓ go test (12 passed)
next: flowdeck flow review token-store --decision approved|needs_fix|blocked
`
	if out := s.hud("text"); out != want {
		t.Fatalf("review:\n%s\nwant:\n%s", out, want)
	}
	md := s.hud("markdown")
	if !strings.HasPrefix(md, "**flowdeck**: Add password reset\n") || !strings.Contains(md, "  - verify: `go test ./auth/...`\n") ||
		!strings.Contains(md, "- next: `flowdeck flow review token-store --decision approved|needs_fix|blocked`\n") {
		t.Fatalf("markdown:\n%s", md)
	}

	s.do(model.ReviewFeature{Feature: "token-store", Decision: model.ReviewApproved})
	s.do(model.RunComplete{Feature: "token-store", Outcome: model.OutcomeCompleted})
	s.do(model.RunStart{Feature: "mailer"})
	s.do(model.RunComplete{Feature: "mailer", Outcome: model.OutcomeBlocked, Summary: "needs an SMTP sandbox"})
	s.do(model.RunStart{}) // nothing runnable: blocks the session
	out := s.hud("text")
	for _, w := range []string{"waits: blocked mailer: needs an SMTP sandbox\n", "waits: session blocked: mailer is blocked; reset-api waits for mailer\n", "next: flowdeck flow reset feature mailer\n"} {
		if !strings.Contains(out, w) {
			t.Fatalf("blocked: missing %q in\n%s", w, out)
		}
	}
	var j HUD
	if err := json.Unmarshal([]byte(s.hud("json")), &j); err != nil || len(j.Waits) != 2 || j.NextCommand != "flowdeck flow reset feature mailer" {
		t.Fatalf("json = %+v (%v)", j, err)
	}
	// A flow's pending decision comes first.
	if _, _, err := s.st.CreateDecision(&model.Decision{Kind: model.DecisionChoice, Prompt: "Use a fake SMTP server?"}, "flow", s.now); err != nil {
		t.Fatal(err)
	}
	if out := s.hud("text"); !strings.Contains(out, "status: blocked, plan approved, 1/3 features completed\nwaits: decision d1: Use a fake SMTP server?\nwaits: blocked mailer") {
		t.Fatalf("decision:\n%s", out)
	}
}

// Long goals, ids, titles, commands and notes, wide and control
// characters: every format stays within 12 lines and 1 KiB.
func TestHUDStaysWithinLimits(t *testing.T) {
	s := newSeed(t)
	long := func(unit string, n int) string { return strings.Repeat(unit, n) }
	s.do(model.PlanStart{Goal: long("ship 🚀 \"it\"\n\x1b[31m", 400)})
	id := func(i int) string { return fmt.Sprintf("%s-%02d", long("x", 58), i) }
	var feats []model.Feature
	for i := range 12 {
		var cmds []string
		for j := range 8 {
			cmds = append(cmds, fmt.Sprintf("go test -run '%s' ./pkg%d/...", long("Ω\u2028", 300), j))
		}
		feats = append(feats, model.Feature{ID: id(i), Title: long("タイトル", 200), Verification: cmds})
	}
	feats[11].DependsOn = []string{id(10)}
	s.do(model.PlanApply{Plan: model.Plan{Features: feats}})
	s.do(model.PlanApprove{})
	for i := range 10 {
		s.do(model.RunStart{Feature: id(i)})
		s.do(model.RunComplete{Feature: id(i), Outcome: model.OutcomeBlocked, Summary: long("blocked because ", 100)})
	}
	s.do(model.RunStart{Feature: id(10)})
	s.do(model.Validate{Feature: id(10), Status: model.ValidationFailed, Scope: model.ScopeTargeted, Command: long("make ", 500), Summary: long("✗ ", 900), Source: model.SourceObserved})
	s.do(model.ReviewFeature{Feature: id(10), Decision: model.ReviewNeedsFix, Findings: []string{long("bad ", 100)}})
	for _, format := range []string{"text", "markdown", "json"} {
		out := s.hud(format)
		checkLimits(t, format, out)
		if !strings.Contains(out, "next") || !strings.Contains(out, "… and") {
			t.Errorf("%s lost the next command or the count of the rest:\n%s", format, out)
		}
		if strings.ContainsAny(out, "\x1b\u2028") {
			t.Errorf("%s kept control characters:\n%q", format, out)
		}
	}
}

func TestHUDRejectsUnknownFormat(t *testing.T) {
	if _, err := (&HUD{}).Render("html"); !IsArgError(err) {
		t.Fatalf("err = %v", err)
	}
}

// The first line says the session's sequence number and when the HUD was
// made; JSON carries the latest agents' events within the limits.
func TestHUDStampAndAgents(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "stamped"})
	for i := range 10 {
		if err := s.st.RecordAgentEvent(model.AgentEvent{Agent: fmt.Sprintf("agent-%d-%s", i, strings.Repeat("x", 50)), Event: "idle", At: s.now.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := BuildHUD(s.st)
	if err != nil {
		t.Fatal(err)
	}
	h.At = time.Date(2026, 5, 1, 9, 30, 0, 0, time.FixedZone("CEST", 7200))
	out, _ := h.Render("text")
	if !strings.HasPrefix(out, "flowdeck (seq 1, 2026-05-01 07:30:00 UTC): stamped\n") {
		t.Fatalf("text:\n%s", out)
	}
	js, _ := h.Render("json")
	checkLimits(t, "json", js)
	var j HUD
	if err := json.Unmarshal([]byte(js), &j); err != nil || j.Seq != 1 || len(j.Agents) != hudMaxItems || !strings.HasPrefix(j.Agents[0].Agent, "agent-9-") {
		t.Fatalf("json = %s (%v)", js, err)
	}
	if h, _ := BuildHUD(nil); h.Status != "no active session" {
		t.Fatalf("no database: %+v", h)
	}
}

// With several active features the HUD shows each with its agent, its
// state and its next command, within the same limits.
func TestHUDShowsEveryActiveFeatureWithItsAgent(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "Parallel"})
	var feats []model.Feature
	for i := range 6 {
		feats = append(feats, model.Feature{ID: fmt.Sprintf("f%d", i), Title: "T", Verification: []string{"go test ./..."}})
	}
	s.do(model.PlanApply{Plan: model.Plan{MaxParallel: 5, Features: feats}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "f0", Agent: "w1"})
	if out := s.hud("text"); !strings.Contains(out, "active: f0 — T (in_progress, agent w1)\n  verify: go test ./...\n") {
		t.Fatalf("one active feature with an agent:\n%s", out)
	}
	s.do(model.RunStart{Feature: "f1", Agent: "w2"})
	s.do(model.Validate{Feature: "f0", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."})
	want := "active: f0 (awaiting_review, agent w1) → flowdeck flow review f0 --decision approved|needs_fix|blocked\n" +
		"active: f1 (in_progress, agent w2) → flowdeck run --feature f1 --scope targeted -- go test ./...\n" +
		"waits: review of f0"
	if out := s.hud("text"); !strings.Contains(out, want) || strings.Contains(out, "verify:") {
		t.Fatalf("two active features:\n%s\nwant:\n%s", out, want)
	}
	for i := 2; i < 5; i++ {
		s.do(model.RunStart{Agent: fmt.Sprintf("agent-%s", strings.Repeat("x", 50))})
	}
	var j HUD
	if err := json.Unmarshal([]byte(s.hud("json")), &j); err != nil || len(j.Claims) != 2 || j.ClaimsMore != 3 || j.Claims[0].Agent != "w1" {
		t.Fatalf("json = %+v (%v)", j, err)
	}
	for _, format := range []string{"text", "markdown", "json"} {
		out := s.hud(format)
		checkLimits(t, format, out)
		if format != "json" && !strings.Contains(out, "active: … and 3 more") {
			t.Errorf("%s does not count the active features it leaves out:\n%s", format, out)
		}
	}
}

// A replan while another feature ran on leaves the plan to approve again
// after that feature ends: the HUD counts the approval as waiting, and its
// next command is the approval.
func TestHUDPlanApprovalWaitsAfterReplan(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "Add password reset"})
	s.do(model.PlanApply{Plan: model.Plan{MaxParallel: 2, Features: []model.Feature{
		{ID: "token-store", Title: "Tokens"}, {ID: "mailer", Title: "Mailer"},
	}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "token-store"})
	s.do(model.RunStart{Feature: "mailer"})
	s.do(model.RunComplete{Feature: "mailer", Outcome: model.OutcomeReplanRequired})
	s.do(model.RunComplete{Feature: "token-store", Outcome: model.OutcomeBlocked})
	out := s.hud("text")
	if !strings.Contains(out, "plan approval") || !strings.Contains(out, "next: flowdeck flow plan approve\n") {
		t.Fatalf("blocked session awaiting re-approval:\n%s", out)
	}
}

// A next command too long for the HUD is never cut into something that would
// not run: the HUD points at flow status, which shows it whole.
func TestHUDNeverCutsTheNextCommand(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "long verification"})
	verify := "go test " + strings.Repeat("./pkg/very/long/path/", 60)
	// b after a: a does not complete the session (whose next command would be flows verify --scope broad).
	s.do(model.PlanApply{Plan: model.Plan{Summary: "s", Features: []model.Feature{{ID: "a", Title: "A", Verification: []string{verify}},
		{ID: "b", Title: "B", DependsOn: []string{"a"}}}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{})
	for _, format := range []string{"text", "markdown", "json"} {
		out := s.hud(format)
		checkLimits(t, format, out)
		if strings.Contains(out, "--scope targeted -- go test") && !strings.Contains(out, verify) {
			t.Errorf("%s holds a cut next command:\n%s", format, out)
		}
		if !strings.Contains(out, "flowdeck flow status") {
			t.Errorf("%s does not point at flow status:\n%s", format, out)
		}
	}
}

// An interrupted feature waits for the person, with the reason; its next
// command is its resume.
func TestHUDSaysWhatIsInterrupted(t *testing.T) {
	s := newSeed(t)
	s.do(model.PlanStart{Goal: "g"})
	s.do(model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "a", Title: "A"}}}})
	s.do(model.PlanApprove{})
	s.do(model.RunStart{Feature: "a", Agent: "w1"})
	s.do(model.RunInterrupt{Feature: "a"})
	out := s.hud("text")
	for _, w := range []string{"active: a — A (interrupted, agent w1)\n", "waits: decision on interrupted a\n", "next: flowdeck flow run resume a\n"} {
		if !strings.Contains(out, w) {
			t.Fatalf("missing %q in\n%s", w, out)
		}
	}
	s.do(model.RunInterrupt{Feature: "a", Summary: "agent w1 exited 137"})
	if out := s.hud("text"); !strings.Contains(out, "waits: decision on interrupted a: agent w1 exited 137\n") {
		t.Fatalf("no reason in\n%s", out)
	}
}
