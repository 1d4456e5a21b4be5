package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
)

// interruptArgs are flow_run_interrupt's arguments.
type interruptArgs struct {
	agent
	full
	guard
	FeatureID string `json:"feature_id" jsonschema:"the active feature"`
	Summary   string `json:"summary,omitempty" jsonschema:"why its worker stopped"`
}

// addInterruptTools registers flow_run_interrupt and flow_run_resume: a
// supervisor marks a crashed worker's feature interrupted (still claimed)
// and clears the mark when the work is retried.
func (s *server) addInterruptTools() {
	addTool(s, "flow_run_interrupt", "Mark the active feature interrupted: its worker crashed or gave up; it stays claimed until resumed, reset or moved on.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in interruptArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.RunInterrupt{Feature: in.FeatureID, Summary: in.Summary})
		})
	addTool(s, "flow_run_resume", "Clear the interrupted mark of the active feature: its work is retried.", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in featureArgs) (ops.Result, error) {
			return s.do(req, in.agent, in.full, in.guard, model.RunResume{Feature: in.FeatureID})
		})
}
