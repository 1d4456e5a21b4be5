package model

import (
	"slices"
	"strings"
)

// MaxParallelLimit bounds a plan's max_parallel: far above the agents one
// person can supervise, low enough that a typo is caught.
const MaxParallelLimit = 64

// MaxAgentNameLen bounds an agent's name, which shows on every status line.
const MaxAgentNameLen = 64

// CheckAgentName refuses a name that cannot name an agent or an actor
// (ValidAgentName) as an invalid_argument naming field: what
// `flow run start --agent`, `agent-event --agent`, `--actor` and an MCP
// agent_id take. A name is one line on every row that shows it, so it is
// kept to characters that cannot forge or swallow one.
func CheckAgentName(field, name string) error {
	if ValidAgentName(name) {
		return nil
	}
	return invalidArg(field, "%s %.80q is not letters, digits, '.', '_' and '-' (at most %d)", field, name, MaxAgentNameLen)
}

// ValidAgentName reports whether name can name an agent: letters, digits,
// '.', '_' and '-', starting with a letter or digit, at most 64 characters
// (^[A-Za-z0-9][A-Za-z0-9._-]*$ as a loop: no regexp compiled at init).
func ValidAgentName(name string) bool {
	if name == "" || len(name) > MaxAgentNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ActiveClaim is one active feature and the agent that claimed it.
type ActiveClaim struct {
	Feature    string `json:"feature"`
	Agent      string `json:"agent,omitempty"`
	StartedSeq uint64 `json:"started_seq"`
}

// MaxParallel is how many features may be active at once in s: the plan's
// max_parallel, at least 1.
func (s *Session) MaxParallel() int {
	if s == nil || s.Plan == nil || s.Plan.MaxParallel < 1 {
		return 1
	}
	return s.Plan.MaxParallel
}

// SharedCheckout reports whether several features of s may be at work at
// once in the project's one checkout (max_parallel without worktrees):
// there, the code's tree says nothing about one feature, and evidence is
// not pinned to it.
func SharedCheckout(s *Session) bool {
	return !s.UsesWorktrees() && s.MaxParallel() > 1
}

// ActiveClaims returns the active (in progress) features of s, oldest claim
// first. The last one is Execution.ActiveFeature.
func ActiveClaims(s *Session) []ActiveClaim {
	if s == nil || s.Plan == nil {
		return nil
	}
	var out []ActiveClaim
	for _, f := range s.Plan.Features {
		if f.Status == FeatureInProgress {
			out = append(out, ActiveClaim{Feature: f.ID, Agent: f.Agent, StartedSeq: f.StartedSeq})
		}
	}
	slices.SortStableFunc(out, func(a, b ActiveClaim) int {
		switch {
		case a.StartedSeq < b.StartedSeq:
			return -1
		case a.StartedSeq > b.StartedSeq:
			return 1
		}
		return 0
	})
	return out
}

// refreshActive makes Execution.ActiveFeature the most recently started
// active feature (or none), after the previous one ended.
func (s *Session) refreshActive() {
	s.Execution.ActiveFeature = ""
	if claims := ActiveClaims(s); len(claims) > 0 {
		s.Execution.ActiveFeature = claims[len(claims)-1].Feature
	}
}

// ClaimOrder returns the claimable features of s (pending, everything they
// wait for completed) in the order run start takes them: plan order under
// Flow's one-active-feature rule, else critical-path order — the feature
// with the longest chain of unfinished features waiting on it first, so the
// agents shorten the session's critical path; ties keep plan order.
func ClaimOrder(s *Session) []string {
	if s == nil || s.Plan == nil {
		return nil
	}
	runnable := Runnable(s.Plan)
	if s.MaxParallel() == 1 || len(runnable) < 2 {
		return runnable
	}
	chain := RemainingChains(s.Plan)
	slices.SortStableFunc(runnable, func(a, b string) int { return chain[b] - chain[a] })
	return runnable
}

// RemainingChains maps every unfinished feature to the number of features on
// the longest chain of unfinished features that starts at it and follows
// dependents (the feature itself counts 1). Completed features are left out.
func RemainingChains(p *Plan) map[string]int {
	out := map[string]int{}
	levels := Levels(p.Features)
	dependents := DependentsIndex(p)
	for i := len(levels) - 1; i >= 0; i-- { // dependents first
		for _, id := range levels[i] {
			if f := p.Feature(id); f == nil || f.Status == FeatureCompleted {
				continue
			}
			n := 0
			for _, d := range dependents[id] {
				n = max(n, out[d])
			}
			out[id] = n + 1
		}
	}
	return out
}

// NextStep is what to do next about one active feature, or (Feature empty)
// the claim of another feature while max_parallel allows it.
type NextStep struct {
	Feature string `json:"feature,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Command string `json:"command"`
}

// NextSteps says what each active feature of s needs next, oldest claim
// first, followed by a claim step when another feature could be claimed now.
// NextCommand is the step of the most recently started feature.
func NextSteps(s *Session) []NextStep {
	if s == nil || s.Plan == nil || s.Archived || s.Status == StatusCompleted {
		return nil
	}
	var out []NextStep
	claims := ActiveClaims(s)
	for _, c := range claims {
		out = append(out, NextStep{Feature: c.Feature, Agent: c.Agent, Command: nextForActive(s, c.Feature)})
	}
	if s.Approval == ApprovalApproved && len(claims) > 0 && len(claims) < s.MaxParallel() && len(Runnable(s.Plan)) > 0 {
		out = append(out, NextStep{Command: "flowdeck flow run start --agent NAME"})
	}
	return out
}

// NextForFeature is the next command for active feature id alone (an
// agent working on it sees this one, not the session's).
func NextForFeature(s *Session, id string) string { return nextForActive(s, id) }

// nextForActive is the next command for active feature id: its first unmet
// completion gate, or its completion.
func nextForActive(s *Session, id string) string {
	f := s.Plan.Feature(id)
	if f == nil {
		return "flowdeck flow status"
	}
	if f.IsInterrupted() {
		return "flowdeck flow run resume " + id
	}
	if err := CompletionGate(s, f); err != nil {
		return err.Recovery.NextCommand
	}
	return "flowdeck flow run complete " + id + " --outcome completed"
}

// claimsText lists claims as "a (agent x), b".
func claimsText(claims []ActiveClaim) string {
	parts := make([]string, len(claims))
	for i, c := range claims {
		parts[i] = c.Feature
		if c.Agent != "" {
			parts[i] += " (agent " + c.Agent + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// ClaimsText lists the active features of s with their agents, oldest
// first, as "a (agent x), b (agent y)".
func ClaimsText(s *Session) string { return claimsText(ActiveClaims(s)) }
