package model

import "testing"

// The person's decisions are refused to launched agents always, to every
// MCP caller under the cockpit policy, and to nobody else; other actions
// are nobody's in particular.
func TestCheckPersonDecision(t *testing.T) {
	person := []Action{PlanApprove{}, ReviewFinal{Decision: ReviewApproved}, Land{}}
	others := []Action{PlanApply{}, RunStart{}, Validate{}, ReviewFeature{}, RunComplete{}, AddNote{}, ResetFeature{}}
	for _, tc := range []struct {
		c      Caller
		refuse bool
	}{
		{Caller{}, false},
		{Caller{MCP: true}, false},
		{Caller{MCP: true, Policy: PersonDecisionsAgents}, false},
		{Caller{Policy: PersonDecisionsCockpit}, false}, // the shell and the cockpit
		{Caller{MCP: true, Policy: PersonDecisionsCockpit}, true},
		{Caller{Agent: "worker-1"}, true},
		{Caller{Agent: "worker-1", MCP: true}, true},
	} {
		for _, a := range person {
			err := CheckPersonDecision(PersonDecision(a), tc.c)
			if me, ok := AsError(err); ok != tc.refuse || ok && (me.Code != CodePersonDecision || me.Recovery.Hint == "") {
				t.Errorf("%+v, %s: %v", tc.c, a.Name(), err)
			}
		}
		if err := CheckPersonDecision(DecisionFlow, tc.c); (err != nil) != tc.refuse {
			t.Errorf("%+v, a flow's decision: %v", tc.c, err)
		}
		for _, a := range others {
			if err := CheckPersonDecision(PersonDecision(a), tc.c); err != nil {
				t.Errorf("%+v, %s refused: %v", tc.c, a.Name(), err)
			}
		}
	}
}
