package model_test

import (
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

const (
	treeA = "1111111111111111111111111111111111111111"
	treeB = "2222222222222222222222222222222222222222"
)

// TestEveryVerificationCommandIsTheContract: a feature whose plan names two
// commands is refused completion until both have passing evidence, matched
// by command (an observed run's quoted argv or a report's text), and its
// state waits for a review only then.
func TestEveryVerificationCommandIsTheContract(t *testing.T) {
	f := mkFeature("f")
	f.Verification = []string{"go test ./...", "go vet ./... | tee vet.log"}
	r := readyRig(t, f, mkFeature("g"))
	r.do(model.RunStart{Feature: "f"})
	r.do(model.Validate{Feature: "f", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./...", Source: model.SourceObserved})
	if st := model.StateOf(r.s, r.feature("f")); st != model.StateInProgress {
		t.Fatalf("state with one of two commands: %s", st)
	}
	complete := model.RunComplete{Feature: "f", Outcome: model.OutcomeCompleted}
	e, _ := r.refuseRecorded(complete, model.CodeMissingValidation, model.EventCompletionRejected)
	if !strings.Contains(e.Message, "go vet") || !strings.Contains(e.Recovery.NextCommand, "sh -c 'go vet ./... | tee vet.log'") {
		t.Fatalf("refusal does not name the missing command: %s / %s", e.Message, e.Recovery.NextCommand)
	}
	// A run of another command is not the contract's.
	r.do(model.Validate{Feature: "f", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go vet ./pkg", Source: model.SourceReported})
	r.refuseRecorded(complete, model.CodeMissingValidation, model.EventCompletionRejected)
	// flowdeck runs a command that needs a shell as sh -c: that is a match.
	r.do(model.Validate{Feature: "f", Status: model.ValidationFailed, Scope: model.ScopeTargeted,
		Command: model.ShellJoin(model.VerifyArgv(f.Verification[1])), Source: model.SourceObserved})
	r.refuseRecorded(complete, model.CodeFailingValidation, model.EventCompletionRejected)
	r.do(model.Validate{Feature: "f", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go vet ./...  |  tee vet.log", Source: model.SourceReported})
	if st := model.StateOf(r.s, r.feature("f")); st != model.StateAwaitingReview {
		t.Fatalf("state with both commands passing: %s", st)
	}
	checks := model.Checks(r.feature("f"), "")
	if len(checks) != 2 || model.ChecksText(checks) != "go test ./... obs✓, go vet ./... | tee vet.log rep✓" {
		t.Fatalf("checks: %s", model.ChecksText(checks))
	}
	r.review("f", model.ReviewApproved)
	r.completeOK("f")
}

// TestStaleEvidenceIsRefused: evidence for one tree does not approve or
// complete the code at another; the refusal names the changed files and
// validates again; evidence without a tree, or an unknown tree, is taken
// as it is.
func TestStaleEvidenceIsRefused(t *testing.T) {
	f := mkFeature("f")
	f.Verification = []string{"go test ./..."}
	r := readyRig(t, f, mkFeature("g"))
	r.do(model.RunStart{Feature: "f", Base: treeA})
	if r.feature("f").Base != treeA {
		t.Fatalf("base not recorded: %q", r.feature("f").Base)
	}
	r.do(model.Validate{Feature: "f", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./...", Tree: treeA})
	e := r.refuse(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved, Pin: model.Pin{Tree: treeB, Changed: []string{"x.go", "evil\x1bname"}}}, model.CodeStaleEvidence)
	if !strings.Contains(e.Message, "x.go") || strings.Contains(e.Message, "\x1b") || !strings.Contains(e.Recovery.NextCommand, "run --feature f --scope targeted -- go test ./...") {
		t.Fatalf("stale refusal: %s / %s", e.Message, e.Recovery.NextCommand)
	}
	r.do(model.ReviewFeature{Feature: "f", Decision: model.ReviewNeedsFix, Pin: model.Pin{Tree: treeB}})
	r.do(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved, Pin: model.Pin{Tree: treeA}})
	r.refuseRecorded(model.RunComplete{Feature: "f", Outcome: model.OutcomeCompleted, Pin: model.Pin{Tree: treeB}}, model.CodeStaleEvidence, model.EventCompletionRejected)
	r.refuse(model.ReviewFeature{Feature: "f", Decision: model.ReviewApproved, Pin: model.Pin{Tree: "HEAD"}}, model.CodeInvalidArgument)
	r.refuse(model.Validate{Feature: "f", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "c", Tree: "--output=x"}, model.CodeInvalidArgument)
	// Unknown code (no git): not stale.
	r.do(model.RunComplete{Feature: "f", Outcome: model.OutcomeCompleted})
}
