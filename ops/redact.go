package ops

import (
	"io"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// redactAction removes secrets from the text of an action that is stored
// as its caller wrote it: a reported validation's command and summary
// (`flow validate --command 'deploy --token X'`). Observed evidence is
// redacted where it is captured.
func redactAction(a model.Action) model.Action {
	v, ok := a.(model.Validate)
	if !ok {
		return a
	}
	r, err := patterns.NewRedactor(LoadConfig(io.Discard).Run.Redact)
	if err != nil {
		r, _ = patterns.NewRedactor(nil) // a broken user rule: the built-ins still apply
	}
	v.Command, v.Summary = r.Command(v.Command), r.Command(v.Summary)
	return v
}
