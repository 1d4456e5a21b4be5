package flows

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/flows/answer"
	"github.com/flowdeck/flowdeck/flows/flowfile"
	"github.com/flowdeck/flowdeck/model"
)

// Answer is a person's answer to a decision: an option (or free text when
// the decision has no options), a note, and form values: Vars as typed
// (strings, coerced to the field types) or Values (already typed, e.g. from
// a cockpit form).
type Answer struct {
	Option string
	Note   string
	Vars   map[string]string
	Values map[string]any
}

// ResolveDecision is the one way a person's answer reaches a decision, from
// the cockpit's keys, `flowdeck decide` or a test: it checks the answer
// against the decision's options and form, then resolves the decision once
// and records it on its flow run (in one transaction). The run continues in
// the process that executes it (or at the next `flowdeck flows resume`).
func ResolveDecision(st *db.Store, id string, a Answer, actor string, now time.Time) (*model.Decision, error) {
	return ResolveDecisionBy(st, id, a, model.Context{Actor: actor, Now: now})
}

// ResolveDecisionBy is ResolveDecision for the caller by says: who answers,
// when, and where the answer came from (by.Via, kept on the resolution).
func ResolveDecisionBy(st *db.Store, id string, a Answer, by model.Context) (*model.Decision, error) {
	actor, now := by.Actor, by.Now
	if err := model.CheckVia("via", by.Via); err != nil {
		return nil, err // the front-ends refuse it first, naming their flag
	}
	d, err := st.ExpireDecision(id, now)
	if err != nil {
		return nil, err
	}
	if d.Status != model.DecisionPending {
		_, _, err := st.ResolveDecision(id, model.Resolution{Actor: actor, At: now})
		return nil, err // refused: says how it was resolved
	}
	values, err := formValues(d, &a)
	if err != nil {
		return nil, err
	}
	values["decision"] = map[string]any{"option": a.Option, "note": a.Note, "actor": actor}
	res, _, err := st.ResolveDecision(id, model.Resolution{Option: a.Option, Note: a.Note, Vars: values, Actor: actor, Via: by.Via, At: now})
	return res, err
}

// invalid refuses an answer that does not fit its decision.
func invalid(format string, args ...any) *model.Error {
	return &model.Error{Code: model.CodeInvalidArgument, Message: fmt.Sprintf(format, args...),
		Recovery: model.Recovery{Hint: "flowdeck decisions shows what the decision asks for.", NextCommand: "flowdeck decisions"}}
}

// formValues collects and coerces the decision's form fields.
func formValues(d *model.Decision, a *Answer) (map[string]any, error) {
	out := map[string]any{}
	if len(d.Fields) == 0 {
		if len(a.Vars)+len(a.Values) > 0 {
			return nil, invalid("decision %s has no form; --var is for form answers", d.ID)
		}
		if len(d.Options) == 0 && a.Option == "" && a.Note == "" {
			return nil, invalid("decision %s needs an answer", d.ID)
		}
		return out, nil
	}
	raw := map[string]any{}
	// A JSON object as the answer fills the form, as an agent's would.
	if strings.HasPrefix(strings.TrimSpace(a.Option), "{") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(a.Option), &obj); err != nil {
			return nil, invalid("decision %s: the answer is not a JSON object: %v", d.ID, err)
		}
		for k, v := range obj {
			raw[k] = v
		}
		a.Option = ""
	}
	for k, v := range a.Values {
		raw[k] = v
	}
	var problems []string
	for _, f := range d.Fields {
		v := flowfile.Var{Name: f.Name, Type: f.Type, Enum: f.Enum}
		var c any
		var err error
		if text, ok := a.Vars[f.Name]; ok {
			c, err = answer.FromText(text, v)
		} else if x, ok := raw[f.Name]; ok {
			c, err = answer.Value(x, v)
		} else if len(d.Fields) == 1 && len(d.Options) == 0 && a.Option != "" {
			// One field and no options: the answer itself is the value.
			c, err = answer.FromText(a.Option, v)
		} else {
			problems = append(problems, fmt.Sprintf("%s is missing (%s)", f.Name, v.TypeText()))
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f.Name, err))
			continue
		}
		out[f.Name] = c
	}
	for k := range a.Vars {
		if !slices.ContainsFunc(d.Fields, func(f model.DecisionField) bool { return f.Name == k }) {
			problems = append(problems, fmt.Sprintf("%s is not a field of this form", k))
		}
	}
	if len(problems) > 0 {
		return nil, invalid("decision %s: %s", d.ID, strings.Join(problems, "; "))
	}
	return out, nil
}
