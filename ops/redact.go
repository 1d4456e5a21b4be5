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
	v, ok := a.(model.Validate)
	if !ok {
		return a
	}
	if r == nil {
		r, _ = patterns.NewRedactor(nil)
	}
	v.Command, v.Summary = r.Command(v.Command), r.Command(v.Summary)
	return v
}
