package model

// The person's decisions: some choices belong to the person who
// supervises the agents, whichever front-end carries them. This file is
// the one place that says which, and who may not take them.

// CodePersonDecision refuses a person's decision to a caller that is not
// the person.
const CodePersonDecision = "person_decision"

// Person's decisions, as named in refusals.
const (
	DecisionPlanApproval = "plan approval"
	DecisionFinalReview  = "the final review"
	DecisionFlow         = "a decision a flow raised for the person"
	DecisionLand         = "land"
)

// Person-decision policies (config [session] person_decisions).
const (
	// PersonDecisionsAgents (the default) refuses them to the agents
	// flowdeck launched; an agent the person chats with may relay them.
	PersonDecisionsAgents = "agents"
	// PersonDecisionsCockpit keeps them to the cockpit and the shell:
	// refused over MCP to every agent.
	PersonDecisionsCockpit = "cockpit"
)

// Caller is who is at the other end of a front-end, as its edge knows it.
// The zero value is the person at the cockpit or in the shell.
type Caller struct {
	// Agent is $FLOWDECK_AGENT: the name flowdeck gave an agent it
	// launched (a crew worker, a flow's agent step). Every process the
	// agent starts inherits it, its MCP server and CLI calls included.
	Agent string
	// MCP says the call came over the MCP server: an agent, launched by
	// flowdeck or by the person.
	MCP bool
	// Policy is the project's person_decisions setting ("" = agents).
	Policy string
}

// PersonDecision names the person's decision that action a is, "" when it
// is anyone's to take.
func PersonDecision(a Action) string {
	switch a.(type) {
	case PlanApprove, *PlanApprove:
		return DecisionPlanApproval
	case ReviewFinal, *ReviewFinal:
		return DecisionFinalReview
	case Land, *Land:
		return DecisionLand
	}
	return ""
}

// CheckPersonDecision refuses c the person's decision what ("" passes):
// an agent flowdeck launched never takes one; over MCP, with the cockpit
// policy, no agent does. The person answers in the cockpit or the shell.
func CheckPersonDecision(what string, c Caller) error {
	if what == "" {
		return nil
	}
	var who string
	switch {
	case c.Agent != "":
		who = "agent " + c.Agent + " was launched by flowdeck ($FLOWDECK_AGENT)"
	case c.MCP && c.Policy == PersonDecisionsCockpit:
		who = "this project keeps them to the cockpit and the shell ([session] person_decisions = \"cockpit\"), and this call came over MCP"
	default:
		return nil
	}
	return &Error{Code: CodePersonDecision,
		Message: capitalize(what) + " is the person's decision: " + who,
		Recovery: Recovery{Prerequisite: "the person's answer",
			Hint:        "The person answers in the cockpit or the shell; go on with your own work, or stop and say what waits for them.",
			NextCommand: "flowdeck flow status"}}
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
