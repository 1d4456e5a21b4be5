package config

import "fmt"

// [session] person_decisions says who may take the person's decisions
// (plan approval, the final review, a flow's decisions, land). Agents that
// flowdeck launched never may; the setting is about the agents the person
// starts and talks to:
//
//	agents  (default) such an agent may relay the person's answer over
//	        MCP, recorded as that agent
//	cockpit only the cockpit and the shell: refused over MCP
//
// The values are model.PersonDecisionsAgents and model.PersonDecisionsCockpit
// (config imports no domain package).
const (
	PersonDecisionsAgents  = "agents"
	PersonDecisionsCockpit = "cockpit"
)

// checkPersonDecisions takes an unknown person_decisions value as the
// stricter one, cockpit, and says why: a typo must not hand the person's
// decisions to agents.
func checkPersonDecisions(c *Config, path string, data []byte) []error {
	switch v := c.Session.PersonDecisions; v {
	case "", PersonDecisionsAgents, PersonDecisionsCockpit:
		return nil
	default:
		c.Session.PersonDecisions = PersonDecisionsCockpit
		return []error{fmt.Errorf("%s:%d: session.person_decisions = %q: use %q or %q (taken as %[5]q until fixed)", path, LineOf(data, "person_decisions"), v, PersonDecisionsAgents, PersonDecisionsCockpit)}
	}
}
