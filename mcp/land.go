package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/ops"
)

// landArgs are flow_land's arguments: the CLI's --force.
type landArgs struct {
	agent
	Force bool `json:"force,omitempty" jsonschema:"land what is merged so far even though the session is not completed"`
}

// addLandTool registers flow_land, flowdeck flow land: the explicit step
// that merges the session's integration branch into the checked-out branch.
// Its result is the CLI's --json object (ops.LandResult).
func (s *server) addLandTool() {
	addTool(s, "flow_land", "Merge the active session's integration branch (flowdeck/SESSION) into the branch checked out in the project and record the landing (the next step of a completed session whose features ran in worktrees); refused unless the session is completed (force lands what is merged so far), on uncommitted changes to tracked files, on a detached HEAD and on a conflict (nothing changed then).", false,
		func(ctx context.Context, req *sdk.CallToolRequest, in landArgs) (ops.Result, error) {
			return asResult(s.p.As(s.actor(req, in.agent)).Land(in.Force))
		})
}
