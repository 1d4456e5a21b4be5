package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The /flow-* commands as MCP prompts, so that clients offer them as slash
// commands. Each prompt is one user message: what to do with the flow
// tools, and the HUD of the session as it is now.
type flowPrompt struct {
	name, title, desc string
	args              []*sdk.PromptArgument
	text              func(args map[string]string) (string, error)
}

var flowPrompts = []flowPrompt{
	{"flow-plan", "Plan a session", "Start a planning session for a goal and draft its plan of features for the person to approve.",
		[]*sdk.PromptArgument{{Name: "goal", Description: "what the session delivers", Required: true}},
		func(a map[string]string) (string, error) {
			goal := strings.TrimSpace(a["goal"])
			if goal == "" {
				return "", fmt.Errorf("flow-plan needs a goal")
			}
			return "Plan this goal with flowdeck: " + goal + `

1. Call flow_plan_start with the goal.
2. Read the code that the goal touches. Draft a plan: a summary and features, each with a kebab-case id, a title, a summary, the files it touches, verification commands that prove it works, and depends_on for the features that must come first. Keep features small enough to review one at a time.
3. Call flow_plan_apply with the plan. A refusal names what is wrong: fix that and apply again.
4. Show the person the plan and ask for approval. Call flow_plan_approve only when they approve; narrow it with flow_plan_select_features if they ask.`, nil
		}},
	{"flow-run", "Work one feature", "Start the next runnable feature (or the one named), implement it, verify it, have it reviewed and complete it.",
		[]*sdk.PromptArgument{{Name: "feature", Description: "the feature id (default: the first runnable one in plan order)"}},
		func(a map[string]string) (string, error) {
			start := "flow_run_start"
			if f := strings.TrimSpace(a["feature"]); f != "" {
				start = fmt.Sprintf("flow_run_start with feature_id %q", f)
			}
			return "Work one feature of the flowdeck session.\n\n1. Call " + start + `.
2. Implement the feature: its summary, files and verification are in the result and in its doc (flowdeck://session/features/ID.md).
3. Run each verification command with the run tool and feature_id, so that the result is observed evidence. Fix what fails and run again.
4. Review the change as a strict reviewer would and record it with flow_review_record_feature (approved, needs_fix or blocked, with findings).
5. Call flow_run_complete_feature with the outcome: completed (needs passing evidence and an approved review), blocked or replan_required, with a summary.
Stop after this feature and report what was done and what next_command says.`, nil
		}},
	{"flow-auto", "Run the whole plan", "Work every runnable feature in dependency order until the session completes or something needs the person.",
		nil,
		func(map[string]string) (string, error) {
			return `Run the approved plan of the flowdeck session to the end.

Repeat: call flow_run_start; implement the feature; run its verification with the run tool and feature_id; review and record it with flow_review_record_feature; complete it with flow_run_complete_feature. Follow next_command after each step.
When every feature is complete, run the project's broad verification with the run tool and scope broad, then record the final review with flow_review_record_final.
Stop and ask the person when a feature is blocked, when a refusal's recovery needs them, or when a decision waits (decisions_list).`, nil
		}},
	{"flow-status", "Session status", "Show the active session: goal, progress, the active feature, what waits and the next command.",
		nil,
		func(map[string]string) (string, error) {
			return "Call flow_status and tell the person, briefly: the goal, progress, the active feature, what waits (a review, a blocked feature, a decision) and next_command.", nil
		}},
	{"flow-reset", "Reset a feature or the session", "Reset a feature and everything downstream of it, or archive the active session.",
		[]*sdk.PromptArgument{{Name: "target", Description: `"feature ID" or "session"`, Required: true}},
		func(a map[string]string) (string, error) {
			target := strings.Fields(a["target"])
			switch {
			case len(target) == 2 && target[0] == "feature":
				return fmt.Sprintf("Reset feature %q of the flowdeck session: first tell the person which features flow_reset_feature also resets (every feature downstream of it, see flow_status) and ask them to confirm; then call flow_reset_feature with feature_id %q.", target[1], target[1]), nil
			case len(target) == 1 && target[0] == "session":
				return "Archive the active flowdeck session: ask the person to confirm (flow_session_activate can bring it back), then call flow_reset_session.", nil
			}
			return "", fmt.Errorf(`flow-reset needs "feature ID" or "session"`)
		}},
}

func (s *server) addPrompts() {
	for _, p := range flowPrompts {
		s.srv.AddPrompt(&sdk.Prompt{Name: p.name, Title: p.title, Description: p.desc, Arguments: p.args},
			func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				text, err := p.text(req.Params.Arguments)
				if err != nil {
					return nil, err
				}
				if hud := s.hud(); hud != "" {
					text += "\n\nThe session now (flowdeck hud):\n" + hud
				}
				return &sdk.GetPromptResult{Description: p.desc,
					Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
			})
	}
}

// hud is the session's HUD as text, or "" when it cannot be read (the
// prompt still says what to do).
func (s *server) hud() string {
	h, err := s.p.HUD()
	if err != nil {
		return ""
	}
	h.At = s.p.Now()
	out, _ := h.Render("text")
	return out
}
