package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/ops"
)

// The fleet's view of the project: the tool fleet_glance and the resource
// ops.FleetGlanceURI, whose updates (see watch.go) tell a fleet to call it
// again.

// glanceArgs are fleet_glance's arguments: only agent_id, which every tool takes.
type glanceArgs struct{ agent }

var glanceResource = &sdk.Resource{URI: ops.FleetGlanceURI, Name: "fleet-glance",
	Title:    "What a fleet shows of this project: progress, active features, what waits for the person (subscribe for changes)",
	MIMEType: "application/json"}

func (s *server) addFleet() {
	addTool(s, "fleet_glance", "The project at a glance for a fleet of projects: its session's progress, the features in progress with their agents, what waits for the person (oldest first, with each decision's prompt and options), the session sequence to answer with (expect_seq), and the fleet API version (api).", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in glanceArgs) (ops.Result, error) {
			g, err := s.p.FleetGlance()
			if err != nil {
				// Still saying api: unreadable now is not incompatible.
				return ops.FleetGlanceFailed(err), nil
			}
			return g, nil
		})
	s.srv.AddResource(glanceResource, s.readGlance)
}

// readGlance answers a read of the glance resource with fleet_glance's JSON.
func (s *server) readGlance(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	if req.Params.URI != ops.FleetGlanceURI {
		return nil, sdk.ResourceNotFoundError(req.Params.URI)
	}
	g, err := s.p.FleetGlance()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("encode the fleet glance: %w", err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: ops.FleetGlanceURI, MIMEType: "application/json", Text: string(data)}}}, nil
}
