package model

import (
	"fmt"
	"strings"
)

// Evidence pinned to the code. The code state is a git tree: a feature's
// Base when it started, each Evidence's Tree when it ran or was reported.
// The gates take the tree the code is at now (Pin, found by the caller:
// the model runs no git) and accept evidence only for that tree.

// CodeStaleEvidence refuses a gate whose evidence ran against other code
// than the code is at now.
const CodeStaleEvidence = "stale_evidence"

// Pin is the code as the caller found it when it asked.
type Pin struct {
	// Tree is the git tree the code is at now; "" when unknown (no git),
	// and then no evidence is stale.
	Tree string
	// Changed are the files that differ between StaleTree's tree and Tree,
	// for the refusal to name (the caller diffs; the model cannot).
	Changed []string
}

// CheckState is one verification command's state on the current code.
type CheckState string

const (
	CheckPassed  CheckState = "passed"
	CheckFailed  CheckState = "failed"
	CheckPartial CheckState = "partial"
	CheckMissing CheckState = "missing"
	CheckStale   CheckState = "stale"
)

// Check is one command of a feature's validation contract with the
// evidence that counts for it: the latest matching evidence since the
// feature started.
type Check struct {
	Command  string     `json:"command"`
	State    CheckState `json:"state"`
	Evidence *Evidence  `json:"evidence,omitempty"`
}

// Checks is f's validation contract on the code at tree: one check per
// verification command of the plan, each met by the latest evidence of
// that command since f started; a feature whose plan names no command has
// one check, met by its latest evidence. Evidence for another tree than
// tree is stale (evidence that names no tree, and an unknown tree, are
// taken as they are).
func Checks(f *Feature, tree string) []Check {
	since := evidenceSince(f.Validations, f.StartedSeq, "")
	if len(f.Verification) == 0 {
		if len(since) == 0 {
			return []Check{{State: CheckMissing}}
		}
		e := since[len(since)-1]
		return []Check{checkOf(e.Command, &e, tree)}
	}
	out := make([]Check, 0, len(f.Verification))
	for _, cmd := range f.Verification {
		var hit *Evidence
		for i := len(since) - 1; i >= 0; i-- {
			if SameCommand(since[i].Command, cmd) {
				hit = &since[i]
				break
			}
		}
		out = append(out, checkOf(cmd, hit, tree))
	}
	return out
}

func checkOf(cmd string, e *Evidence, tree string) Check {
	c := Check{Command: cmd, Evidence: e}
	switch {
	case e == nil:
		c.State = CheckMissing
	case StaleOn(e, tree):
		c.State = CheckStale
	case e.Status == ValidationPassed:
		c.State = CheckPassed
	case e.Status == ValidationPartial:
		c.State = CheckPartial
	default:
		c.State = CheckFailed
	}
	return c
}

// StaleOn reports whether evidence e ran against other code than tree.
func StaleOn(e *Evidence, tree string) bool {
	return e != nil && e.Tree != "" && tree != "" && e.Tree != tree
}

// SameCommand reports whether evidence of command got (as recorded: a
// report's text, or an observed run's argv quoted) is the run of the
// plan's verification command want: the same words, or want run through
// sh -c (as the flows run every verification command, and flowdeck run
// one that needs a shell).
func SameCommand(got, want string) bool {
	g, w := strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")
	if g == "" || w == "" {
		return false
	}
	return g == w || got == ShellJoin(VerifyArgv(want)) || got == ShellJoin([]string{"sh", "-c", want})
}

// VerifyArgv is the argv flowdeck runs verification command cmd as: its
// words when no word needs a shell, else sh -c cmd.
func VerifyArgv(cmd string) []string {
	if words, ok := plainWords(cmd); ok {
		return words
	}
	return []string{"sh", "-c", cmd}
}

// StaleTree is the tree of the first evidence that counts for f (its
// checks, or with broad the latest broad evidence) and is stale on tree,
// or "": what the caller diffs against tree to name the changed files.
func StaleTree(f *Feature, tree string, broad bool) string {
	if broad {
		if e := LatestBroad(f); StaleOn(e, tree) {
			return e.Tree
		}
	} else if c := firstStale(Checks(f, tree)); c != nil {
		return c.Evidence.Tree
	}
	return ""
}

// firstStale is the first of cs met by evidence of other code, or nil.
func firstStale(cs []Check) *Check {
	for i := range cs {
		if cs[i].State == CheckStale {
			return &cs[i]
		}
	}
	return nil
}

// LatestBroad is f's latest broad evidence since it last started, or nil:
// what the session's final review decides on.
func LatestBroad(f *Feature) *Evidence {
	broad := evidenceSince(f.Validations, f.StartedSeq, ScopeBroad)
	if len(broad) == 0 {
		return nil
	}
	return &broad[len(broad)-1]
}

// staleRefusal is the stale_evidence refusal of f's evidence e on the code
// the caller pinned: it names the changed files and the command that
// validates the code as it is now.
func staleRefusal(s *Session, f *Feature, e *Evidence, p Pin, scope Scope) *Error {
	what := "the code changed"
	if len(p.Changed) > 0 {
		what = "changed since: " + QuotedFiles(CapFiles(p.Changed))
	}
	err := refuse(CodeStaleEvidence, string(s.Status), "validation evidence of the code as it is now",
		"The code changed after it was validated: validate it again, then review the change again.", "",
		"the evidence of %s (%s) ran against other code: %s", f.ID, FirstLine(e.Command, 80), what)
	return withValidateCommand(f, err, scope, e.Command)
}

// withValidateCommand is withValidate for the plan's verification command
// cmd when it is one, else for the plan's first.
func withValidateCommand(f *Feature, e *Error, scope Scope, cmd string) *Error {
	for _, v := range f.Verification {
		if SameCommand(cmd, v) {
			return e.withAction(append([]string{"run", "--feature", f.ID, "--scope", string(scope), "--"}, VerifyArgv(v)...)...)
		}
	}
	return withValidate(f, e, scope)
}

// checkPinned refuses an approval of f when the evidence that counts for
// it is stale on the pinned code.
func checkPinned(s *Session, f *Feature, p Pin) *Error {
	if c := firstStale(Checks(f, p.Tree)); c != nil {
		return staleRefusal(s, f, c.Evidence, p, c.Evidence.Scope)
	}
	return nil
}

// ChecksText is f's checks on one line, as status and the docs show them:
// "go test ./... obs✓, go vet ./... missing".
func ChecksText(cs []Check) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		cmd := c.Command
		if cmd == "" {
			cmd = "validation"
		}
		parts = append(parts, fmt.Sprintf("%s %s", FirstLine(cmd, 60), CheckMark(c)))
	}
	return strings.Join(parts, ", ")
}

// CheckMark is a check's state in a few cells: obs✓ or rep✓ for passing
// evidence (observed or reported), stale, ✗, partial or missing.
func CheckMark(c Check) string {
	switch c.State {
	case CheckPassed:
		if c.Evidence.Source == SourceObserved {
			return "obs✓"
		}
		return "rep✓"
	case CheckFailed:
		return "✗"
	}
	return string(c.State)
}

// finalPinned refuses a final approval while the broad evidence of an
// active feature (what the final review follows) is stale on the pinned
// code.
func finalPinned(s *Session, p Pin) *Error {
	if s == nil || s.Plan == nil || p.Tree == "" {
		return nil
	}
	for _, c := range ActiveClaims(s) {
		f := s.Plan.Feature(c.Feature)
		if f == nil {
			continue
		}
		if e := LatestBroad(f); StaleOn(e, p.Tree) {
			return staleRefusal(s, f, e, p, ScopeBroad)
		}
	}
	return nil
}

// checkTree refuses a tree argument that is not a git object id: it comes
// from outside and goes to git.
func checkTree(field, tree string) error {
	if tree != "" && !isObjectID(tree) {
		return invalidArg(field, "tree %s is not a git object id", quoteID(tree))
	}
	return nil
}

// Pinned reports whether an active feature of s has evidence pinned to a
// tree: whether it is stale then depends on the code as it is now, which
// only git can tell (a status rendered ahead of time cannot).
func Pinned(s *Session) bool {
	if s == nil || s.Plan == nil {
		return false
	}
	for i := range s.Plan.Features {
		f := &s.Plan.Features[i]
		if f.Status != FeatureInProgress {
			continue
		}
		for _, e := range evidenceSince(f.Validations, f.StartedSeq, "") {
			if e.Tree != "" {
				return true
			}
		}
	}
	return false
}

// HasStale reports whether any of cs is met by evidence of other code.
func HasStale(cs []Check) bool { return firstStale(cs) != nil }

// ChecksSummary is f's checks for a status line: "" while every command
// passes (its evidence says the rest), else how many pass, with "stale"
// when the code moved since any of them.
func ChecksSummary(cs []Check) string {
	passed := 0
	for _, c := range cs {
		if c.State == CheckPassed {
			passed++
		}
	}
	switch {
	case HasStale(cs):
		return "stale: the code changed since its evidence"
	case passed == len(cs) || len(cs) == 1:
		return ""
	}
	return fmt.Sprintf("%d/%d verification commands pass", passed, len(cs))
}
