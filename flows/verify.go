package flows

import (
	"context"
	"fmt"
	"strings"

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/worktrees"
)

// Verification is what VerifyFeature did.
type Verification struct {
	OK       bool            `json:"ok"`     // everything ran and recorded
	Passed   bool            `json:"passed"` // every command passed
	Feature  string          `json:"feature"`
	Scope    model.Scope     `json:"scope"`
	Commands []VerifyCommand `json:"commands"`
	Summary  string          `json:"summary"`
	Error    *model.Error    `json:"error,omitempty"`
	// Integration is the feature's branch against the integration branch,
	// after the commands ran (worktree sessions): the run flow merges the
	// integration branch in before broad validation only when needed.
	Integration *worktrees.Integration `json:"integration,omitempty"`
}

// VerifyCommand is one verification command and how it went.
type VerifyCommand struct {
	Command  string `json:"command"`
	Status   string `json:"status"`
	Headline string `json:"headline"`
	Run      string `json:"run"`
	Detail   string `json:"detail,omitempty"`
}

// VerifyFeature runs the active feature's verification commands (broad
// scope: every feature's, in plan order, once each) through the runner, each
// as `sh -c COMMAND` in the project root, recording observed evidence. It is
// what the built-in flows call between the worker and the review, so the
// evidence is flowdeck's own observation, not the agent's report. opts
// supplies the capture settings (patterns, redaction, isolation, output).
func VerifyFeature(ctx context.Context, st *db.Store, root, feature string, scope model.Scope, opts capture.Options) (*Verification, error) {
	s, err := st.Active()
	if err != nil {
		return nil, err
	}
	if scope == "" {
		scope = model.ScopeTargeted
	}
	v := &Verification{Feature: feature, Scope: scope}
	refuse := func(code, msg string) (*Verification, error) {
		v.Error = &model.Error{Code: code, Message: msg, Recovery: model.Recovery{NextCommand: model.NextCommand(s)}}
		v.Summary = msg
		return v, nil
	}
	if s == nil || s.Plan == nil {
		return refuse(model.CodeNoPlan, "there is no active plan")
	}
	if feature == "" {
		feature = s.Execution.ActiveFeature
		v.Feature = feature
	}
	f := s.Plan.Feature(feature)
	if f == nil {
		return refuse(model.CodeUnknownFeature, fmt.Sprintf("no feature %q in the plan", feature))
	}
	cmds := model.VerifyCommands(s.Plan, f, scope)
	if len(cmds) == 0 {
		return refuse(model.CodeMissingValidation, fmt.Sprintf("feature %s has no verification commands: record validation by hand (flowdeck run --feature %s -- CMD)", feature, feature))
	}
	if err := capture.Precheck(st, feature, scope); err != nil {
		if me, ok := model.AsError(err); ok {
			v.Error, v.Summary = me, me.Message
			return v, nil
		}
		return nil, err
	}
	v.OK, v.Passed = true, true
	// Placed once, in the feature's worktree when it has one: every command
	// runs in the same directory and its evidence names the commit placed
	// here, not one with what an earlier command left behind.
	placed := opts
	placed.Dir, placed.Feature, placed.Scope = root, feature, scope
	if err := worktrees.PlaceRun(st, &placed, true); err != nil {
		return nil, err
	}
	var lines []string
	for _, c := range cmds {
		o := placed
		o.Argv = []string{"sh", "-c", c}
		res, err := capture.Run(ctx, st, o)
		if err != nil {
			return nil, err
		}
		vc := VerifyCommand{Command: c, Status: string(capture.EvidenceStatus(res.Run)), Headline: res.Headline, Run: res.Run.ID}
		if vc.Status != string(model.ValidationPassed) {
			v.Passed = false
			vc.Detail = clipDetail(res.Classification.Detail)
		}
		if res.EvidenceError != nil {
			v.OK = false
			v.Error = res.EvidenceError
		}
		v.Commands = append(v.Commands, vc)
		line := vc.Headline
		if vc.Detail != "" {
			line += "\n" + vc.Detail
		}
		lines = append(lines, line)
	}
	v.Summary = strings.Join(lines, "\n")
	v.Integration = worktrees.IntegrationOf(st, s, feature)
	return v, nil
}

func clipDetail(s string) string {
	const max = 8 << 10
	if len(s) > max {
		return s[:max/2] + "\n…\n" + s[len(s)-max/2:]
	}
	return s
}
