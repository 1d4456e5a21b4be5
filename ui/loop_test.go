package ui

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/flowdeck/flowdeck/model"
)

// The plan's approval waits in the bar with its key; P (or a on a feature)
// asks in a dialog naming the plan, y approves.
func TestApprovePlanFromTheCockpit(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "planning")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("waiting: plan approval", "next (P): flowdeck flow plan approve")
	h.key("a")
	h.mustSee("Approve the plan of", "8 features", "token-store, mailer")
	h.key("n")
	if s := active(t, st); s.Approval == model.ApprovalApproved {
		t.Fatal("n approved the plan")
	}
	h.key("P", "y")
	h.mustSee("✓ plan approved")
	if s := active(t, st); s.Approval != model.ApprovalApproved {
		t.Fatalf("approval = %s", s.Approval)
	}
}

// :/flow-apply FILE applies a plan file; /flow-validate records evidence;
// /flow-review and /flow-complete ask in a dialog naming the feature.
func TestLoopCommands(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0}
	s.do(model.PlanStart{Goal: "Loop"})
	plan := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(plan, []byte(`{"summary":"s","features":[{"id":"a","title":"A"},{"id":"b","title":"B","depends_on":["a"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("next (:/flow-apply FILE)")
	h.key(":")
	h.typeText("/flow-apply " + plan)
	h.key("enter")
	h.mustSee("✓ plan applied: 2 features")
	h.key("P", "y", "1", "g", "s", "y")
	h.mustSee("✓ started a")
	h.key(":")
	h.typeText("/flow-validate a passed broad go test ./...")
	h.key("enter")
	h.mustSee("broad validation passed (reported, a): go test ./...")
	h.clk.Add(time.Second) // past the grace period of the review that opened
	h.key("esc")           // later
	h.key(":")
	h.typeText("/flow-review a needs_fix no test for b; rename it")
	h.key("enter")
	h.mustSee("Record the review of a: needs_fix?", "findings: no test for b; rename it")
	h.key("y")
	h.mustSee("review of a: needs_fix")
	f := active(t, st).Plan.Feature("a")
	if r := f.Reviews[len(f.Reviews)-1]; r.Decision != model.ReviewNeedsFix || len(r.Findings) != 2 || r.Actor != "human" {
		t.Fatalf("review = %+v", r)
	}
	h.key(":")
	h.typeText("/flow-complete a blocked waits for the API key")
	h.key("enter")
	h.mustSee("Complete a (blocked)?", "summary: waits for the API key")
	h.key("y")
	if f := active(t, st).Plan.Feature("a"); f.Status != model.FeatureBlocked || f.OutcomeNote != "waits for the API key" {
		t.Fatalf("a = %s %q", f.Status, f.OutcomeNote)
	}
	h.mustSee("session blocked (a): waits for the API key")
}

// /flow-run ID says why not when the model would refuse to start ID.
func TestFlowRunSaysWhyNot(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "running")
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.key(":")
	h.typeText("/flow-run rate-limit")
	h.key("enter")
	h.mustSee("cannot run rate-limit:", "feature_already_active")
	if len(h.m.flowJobs) != 0 {
		t.Fatal("a refused /flow-run started a flow")
	}
}

// A flow that stops at a refusal is reported as refused, not completed.
func TestRefusedFlowIsReportedRefused(t *testing.T) {
	done := func(final string) note {
		return flowDoneNote(flowDoneMsg{job: &flowJob{label: "flow plan"}, run: &model.FlowRun{ID: "plan-3", Status: model.FlowCompleted, StepsRun: 2}, final: final})
	}
	if n := done("✗ The plan could not be approved: no plan\n\nmore"); n.kind != noteErr || n.lines[0] != "✗ flow run plan-3 refused: The plan could not be approved: no plan" {
		t.Fatalf("refused flow: %+v", n)
	}
	if n := done("■ A session is already active (x)."); n.kind == noteOK {
		t.Fatalf("stopped flow reported ok: %+v", n)
	}
	if n := done("✓ The plan is approved."); n.kind != noteOK {
		t.Fatalf("completed flow: %+v", n)
	}
	// A run that ended at a stop: refused step carries its reason.
	refused := &model.FlowRun{ID: "run-2", Status: model.FlowRefused, Error: "feature_already_active: login-page is active"}
	if n := flowDoneNote(flowDoneMsg{job: &flowJob{label: "flow run"}, run: refused}); n.kind != noteErr ||
		n.lines[0] != "✗ flow run run-2 refused: feature_already_active: login-page is active" {
		t.Fatalf("refused run: %+v", n)
	}
}

// `flowdeck` in /run is the cockpit's own flowdeck, not whatever PATH holds.
func TestFlowdeckBinaryIsOurOwn(t *testing.T) {
	dir := t.TempDir()
	cockpit := filepath.Join(dir, "flowdeck-cockpit")
	if got := flowdeckBinary(cockpit); got != cockpit {
		t.Fatalf("alone: %s", got)
	}
	lean := filepath.Join(dir, "flowdeck")
	if err := os.WriteFile(lean, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := flowdeckBinary(cockpit); got != lean {
		t.Fatalf("beside the lean binary: %s", got)
	}
	if got := flowdeckBinary(filepath.Join(t.TempDir(), "ui.test")); got != "flowdeck" {
		t.Fatalf("not flowdeck: %s", got)
	}
}

// When a flow asks for the review itself, the cockpit does not ask too.
func TestReviewAskedOnce(t *testing.T) {
	st := newStore(t)
	scenario(t, st, "review")
	d := &model.Decision{Kind: model.DecisionChoice, Prompt: "Your review of reset-api?",
		Options: []model.DecisionOption{{ID: "approved"}, {ID: "needs_fix"}, {ID: "blocked"}}}
	if _, _, err := st.CreateDecision(d, "agent", t0); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, st, 120, 40, zeroConfig())
	h.mustSee("Your review of reset-api?", "1 waiting: decision d1")
	h.mustNotSee("Review reset-api", "waiting: review")
}

// :/flow-apply on a FIFO planted in the project, or on a link out of it,
// is refused naming it, at once: the command used to block in open(2)
// until something wrote to the FIFO.
func TestApplyPlanFileRefusesFIFOAndLinkOut(t *testing.T) {
	st := newStore(t)
	s := &seeder{tb: t, st: st, now: t0}
	s.do(model.PlanStart{Goal: "Loop"})
	h := newHarness(t, st, 120, 40, zeroConfig())
	root := h.m.root()
	if err := syscall.Mkfifo(filepath.Join(root, "plan.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(outside, []byte(`{"summary":"s","features":[{"id":"a","title":"A"}]}`), 0o644)
	os.Symlink(outside, filepath.Join(root, "link.json"))
	for name, code := range map[string]string{"plan.json": model.CodeNotRegularFile, "link.json": model.CodePathEscapes} {
		cmd := h.m.applyPlanFile(name)
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		select {
		case msg := <-done:
			am, ok := msg.(actionMsg)
			if f, isFault := model.AsFault(am.err); !ok || !isFault || f.Code != code || f.Path != filepath.Join(root, name) {
				t.Fatalf("%s: %#v, want %s naming it", name, msg, code)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("/flow-apply %s hung for 60 s", name)
		}
	}
	if s := active(t, st); s.Plan != nil && len(s.Plan.Features) != 0 {
		t.Fatalf("a refused plan was applied: %v", s.Plan.Features)
	}
}
