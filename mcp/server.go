// Package mcp serves flowdeck to agents over the Model Context Protocol on
// stdio: one tool per action, `run` and `recall` for commands and their
// output, and the session's docs as resources. Tool results are the objects
// of package ops, the same JSON that `flowdeck --json` prints.
//
// The server works through a *project.Project, which keeps no database open
// between calls, so it runs beside the cockpit and CLI calls.
package mcp

import (
	"context"
	"io"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// Options tune a server.
type Options struct {
	// Actor is recorded on the events of calls without an agent_id; ""
	// means the client's name from the initialize handshake (with Person:
	// "human").
	Actor string
	// Person serves the person rather than agents (a fleet's connection,
	// `flowdeck mcp --person`): the project's person_decisions policy,
	// which may keep the person's decisions from every MCP caller, does
	// not apply, as in the person's shell. It grants nothing an agent's
	// shell lacks: a process flowdeck launched as an agent
	// ($FLOWDECK_AGENT, project.Options.Agent) is refused them still.
	Person bool
	// Via is where the calls come from (e.g. "fleet@laptop"), recorded on
	// their events and decision answers; it must pass model.CheckVia
	// (Serve refuses it otherwise).
	Via string
	// Version is reported to clients.
	Version string
	// ProgressEvery is how often a running command reports progress
	// (default 500 ms).
	ProgressEvery time.Duration
	// MaxLineBytes and MaxDepth bound one inbound message (0: the package
	// constants).
	MaxLineBytes, MaxDepth int
	// WatchEvery is how often the project is polled for changes while a
	// client is subscribed to the fleet glance (default 250 ms).
	WatchEvery time.Duration
}

// instructions tell an agent how flowdeck wants to be used.
const instructions = `flowdeck keeps this repository's planning session: a goal, a plan of features with dependencies, validation evidence and reviews.
Call flow_status first (the prompts flow-plan, flow-run, flow-auto, flow-status and flow-reset are the /flow-* commands); every result has next_command, the step that helps next. Results are compact (what an action touched and a session summary); flow_status with full: true is the whole stored session.
Run builds and tests with the run tool and feature_id, so that their result becomes observed validation evidence on the active feature.
A refused call is a tool error whose JSON starts {"ok":false,"error":{code, message, field?, recovery: {hint, next_command}}}: act on it instead of retrying.`

// NewServer builds the MCP server for project p. p's Warn receives config
// and pattern problems (stderr: stdout is the protocol), and its clock
// stamps the events.
func NewServer(p *project.Project, opts Options) *sdk.Server { return newServer(p, opts).srv }

func newServer(p *project.Project, opts Options) *server {
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 500 * time.Millisecond
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.WatchEvery <= 0 {
		opts.WatchEvery = watchEvery
	}
	// Callers over MCP are agents (unless the server serves the person):
	// the project's person_decisions setting may keep the person's
	// decisions from all of them.
	if !opts.Person {
		p = p.OverMCP()
	}
	if opts.Via != "" {
		p = p.From(opts.Via)
	}
	s := &server{p: p, opts: opts, docs: map[string]bool{}, subscribed: map[*sdk.ServerSession]bool{}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "flowdeck", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, SubscribeHandler: s.subscribe, UnsubscribeHandler: s.unsubscribe})
	s.addTools()
	s.addResources()
	s.addDiff() // mcp/diff.go
	s.addPrompts()
	s.addFleet() // mcp/fleet.go
	return s
}

// Serve answers MCP requests on in/out until the client disconnects or ctx
// ends. Malformed input is answered with JSON-RPC errors (see frameFilter);
// it never ends the session.
func Serve(ctx context.Context, p *project.Project, opts Options, in io.Reader, out io.Writer) error {
	if err := model.CheckVia("--via", opts.Via); err != nil {
		return err
	}
	w := &lockedWriter{w: out}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = MaxLineBytes
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = MaxDepth
	}
	r := frameFilter(in, w, opts.MaxLineBytes, opts.MaxDepth)
	defer r.Close()
	// The filter bounds every line, so the SDK's own cap (which also counts
	// read-ahead bytes of the next line) is off.
	t := &sdk.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}
	return NewServer(p, opts).Run(ctx, t)
}
