package ops

import (
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// redactAction removes secrets from the free text of an action, which is
// stored as its caller wrote it: in the event log, the materialized session
// and the .flow docs people commit. Every action type that carries text a
// person or an agent typed is here: a goal, a plan's prose, a reported
// validation's command and summary (`flow validate --command 'deploy
// --token X'`), review findings, a completion's summary, an interruption's
// reason, an archive's reason and a note. Observed evidence is redacted
// where it is captured.
//
// A plan's verification commands are left as written: they are run
// (`flows verify`), and `API_TOKEN=$TOKEN make test` must not become
// `API_TOKEN=[REDACTED] make test`.
func redactAction(a model.Action, r *patterns.Redactor) model.Action {
	r = orBuiltin(r)
	switch v := a.(type) {
	case model.PlanStart:
		// Redacted before the session's id is made of it (db.uniqueSessionID).
		v.Goal = text(r, v.Goal)
		return v
	case model.PlanApply:
		v.Plan = redactPlan(v.Plan, r)
		return v
	case model.Validate:
		v.Command, v.Summary = r.Command(v.Command), text(r, v.Summary)
		return v
	case model.ReviewFeature:
		v.Findings = texts(r, v.Findings)
		return v
	case model.ReviewFinal:
		v.Findings = texts(r, v.Findings)
		return v
	case model.RunComplete:
		v.Summary = text(r, v.Summary)
		return v
	case model.RunInterrupt:
		// Why an agent stopped is often its last output: a token it
		// printed must not reach the log through the reason.
		v.Summary = text(r, v.Summary)
		return v
	case model.ResetSession:
		v.Reason = text(r, v.Reason)
		return v
	case model.AddNote:
		v.Text = text(r, v.Text)
		return v
	}
	return a
}

// redactPlan is p with its prose redacted: summary, overview, requirements,
// decisions, and each feature's title and summary. The features are copied,
// so the caller's plan is not changed.
func redactPlan(p model.Plan, r *patterns.Redactor) model.Plan {
	p.Summary, p.Overview = text(r, p.Summary), text(r, p.Overview)
	p.Requirements, p.Decisions = texts(r, p.Requirements), texts(r, p.Decisions)
	if p.Features != nil {
		fs := make([]model.Feature, len(p.Features))
		for i, f := range p.Features {
			f.Title, f.Summary = text(r, f.Title), text(r, f.Summary)
			fs[i] = f
		}
		p.Features = fs
	}
	return p
}

// text is free text with its secrets redacted: each line as output is (a
// private key block may span lines), then the values of secret options as
// in a command line (`deploy --token X` in a summary).
func text(r *patterns.Redactor, s string) string {
	if s == "" {
		return s
	}
	return r.Command(string(r.Text([]byte(s))))
}

// texts is text over a list; nil stays nil.
func texts(r *patterns.Redactor, list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = text(r, s)
	}
	return out
}

// orBuiltin is r, or the built-in rules when r is nil.
func orBuiltin(r *patterns.Redactor) *patterns.Redactor {
	if r == nil {
		r, _ = patterns.NewRedactor(nil)
	}
	return r
}
