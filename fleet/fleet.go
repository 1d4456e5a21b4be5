// Package fleet is one view over many flowdeck projects: a local directory
// or a transport command whose stdio speaks `flowdeck mcp` (ssh, kubectl
// exec -i, docker exec -i). It keeps one MCP client connection per project,
// updated by the server's change notifications, reconnects with backoff,
// bounds every call in time, and sanitises and bounds every byte a remote
// sends: a remote flowdeck is untrusted like any agent.
//
// This file is the contract the front-ends (the fleet commands, the fleet
// view) code against.
package fleet

import (
	"time"

	"github.com/flowdeck/flowdeck/fleet/fleetconf"
	"github.com/flowdeck/flowdeck/ops"
)

// Entry is one project of the fleet as the user's config keeps it: a local
// directory, or a transport command that ends by running `flowdeck … mcp`.
// It is defined in fleetconf, which flowdeck-cli links without the MCP SDK.
type Entry = fleetconf.Entry

// Reach says whether a project answers.
type Reach string

const (
	Connecting   Reach = "connecting"   // no answer yet
	Reachable    Reach = "reachable"    // connected, glance up to date
	Unreachable  Reach = "unreachable"  // the transport failed or timed out; retried with backoff
	Incompatible Reach = "incompatible" // it answers another fleet API version (ops.FleetAPI)
)

// Status is one project's row: what its flowdeck last said, and whether it
// answers now.
type Status struct {
	Entry
	Reach Reach
	// Err says why a project is unreachable or incompatible (one line,
	// sanitised).
	Err string
	// Glance is the last glance received (sanitised and bounded), nil
	// before the first; an unreachable project keeps its last one.
	Glance *ops.FleetGlance
	// Version is the remote flowdeck's version from the handshake.
	Version string
	// Updated is when Glance arrived; Retry when an unreachable project is
	// tried again.
	Updated, Retry time.Time
}

// Item is one entry of the fleet's queue: something that waits for the
// person in one project.
type Item struct {
	Project string
	Wait    ops.FleetWait
	// Seq is the project's session sequence the wait was seen at: the
	// answer carries it as expect_seq.
	Seq uint64
}
