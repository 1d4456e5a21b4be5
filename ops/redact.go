package ops

import (
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// redactAction removes secrets from the text of an action that is stored
// as its caller wrote it: a reported validation's command and summary
// (`flow validate --command 'deploy --token X'`). Observed evidence is
// redacted where it is captured.
func redactAction(a model.Action, r *patterns.Redactor) model.Action {
	switch v := a.(type) {
	case model.Validate:
		r = orBuiltin(r)
		v.Command, v.Summary = r.Command(v.Command), r.Command(v.Summary)
		return v
	case model.RunInterrupt:
		// Why an agent stopped is often its last output: a token it
		// printed must not reach the log through the reason.
		v.Summary = orBuiltin(r).Command(v.Summary)
		return v
	}
	return a
}

// orBuiltin is r, or the built-in rules when r is nil.
func orBuiltin(r *patterns.Redactor) *patterns.Redactor {
	if r == nil {
		r, _ = patterns.NewRedactor(nil)
	}
	return r
}
