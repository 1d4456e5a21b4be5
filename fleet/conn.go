package fleet

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/mcp"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
)

// Options tune a fleet.
type Options struct {
	// Version is this flowdeck's version, sent in the handshake.
	Version string
	// Origin is where the person's answers come from, recorded remotely
	// as via (default "fleet@" + hostname). It travels on a transport's
	// command line: characters other than letters, digits and @._:- become
	// '-', and it is cut to model.ViaMax.
	Origin string
	// Actor names the person on a local project's answers (default:
	// $FLOWDECK_ACTOR when it is a valid name, else the server's "human"),
	// as `flowdeck mcp --person` on this machine names them. A remote's
	// flowdeck names the person by its own environment.
	Actor string
	// CallTimeout bounds every call, and a connection's whole set-up
	// (default 10 s).
	CallTimeout time.Duration
	// KeepAlive is the ping interval that finds a half-open transport
	// (default 15 s; a ping unanswered within CallTimeout ends the
	// connection). Local projects, served in this process, are not pinged.
	KeepAlive time.Duration
	// MaxConnecting bounds the projects that set up a connection at once
	// (default DefaultMaxConnecting): fifty handshakes started together
	// on two cores starve the first frame and one another, and the last
	// ones time out. A project waiting for its turn is still connecting;
	// its CallTimeout starts with its turn.
	MaxConnecting int
	Now           func() time.Time
}

// Defaults of Options.
const (
	DefaultCallTimeout = 10 * time.Second
	DefaultKeepAlive   = 15 * time.Second
	// DefaultMaxConnecting: measured with 50 projects over ssh on two
	// cores, all 50 at once timed 20 of them out; a handful at a time
	// keeps each handshake well inside the call timeout.
	DefaultMaxConnecting = 6
)

// Reconnection: an unreachable project is tried again after minBackoff,
// doubling to maxBackoff (each jittered by ±20%); an incompatible one
// every incompatibleRetry, in case it was upgraded.
const (
	minBackoff        = time.Second
	maxBackoff        = 30 * time.Second
	incompatibleRetry = 5 * time.Minute
)

// protocolVersion is the MCP version the fleet asks for: the last one with
// the initialize handshake (the server's version in it), keep-alive pings
// and resources/subscribe as a plain request; the SDK's newer one has
// none of the three in this form.
const protocolVersion = "2025-11-25"

// clientName is how the fleet names itself in the handshake.
const clientName = "flowdeck-fleet"

// glanceTool is the tool that answers ops.FleetGlance.
const glanceTool = "fleet_glance"

func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.MaxConnecting <= 0 {
		o.MaxConnecting = DefaultMaxConnecting
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Origin == "" {
		host, _ := os.Hostname()
		o.Origin = "fleet@" + cmp.Or(host, "localhost")
	}
	o.Origin = safeOrigin(o.Origin)
	if o.Actor == "" {
		o.Actor = os.Getenv("FLOWDECK_ACTOR")
	}
	if !model.ValidAgentName(o.Actor) {
		o.Actor = ""
	}
	return o
}

// safeOrigin keeps origin to what --via accepts (model.CheckVia), which
// also passes through a remote shell as it is (ssh joins its arguments
// into a command line).
func safeOrigin(origin string) string {
	b := []byte(origin)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("@._:-", c) >= 0) {
			b[i] = '-'
		}
	}
	return string(b[:min(len(b), model.ViaMax)])
}

// Fleet is the live view of the fleet's projects: one goroutine and one
// MCP connection per project.
type Fleet struct {
	opts    Options
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	changed chan struct{}
	// turns holds a token per connection being set up (MaxConnecting).
	turns   chan struct{}
	members []*member
	byName  map[string]*member

	// mu guards every member's st and conn: the accessors copy under it
	// and never wait on a project.
	mu sync.Mutex
}

// member is one project of the fleet.
type member struct {
	f     *Fleet
	entry Entry
	// refresh asks the project's goroutine for a new glance (capacity 1:
	// requests coalesce, and one glance call at most is in flight).
	refresh chan struct{}

	st   Status // under f.mu
	conn *conn  // under f.mu: the live connection, nil while there is none
}

// Open starts one connection per entry in the background and returns at
// once: it never blocks on a project. An entry its config check refuses
// shows as unreachable with the reason.
func Open(entries []Entry, opts Options) *Fleet {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	f := &Fleet{opts: opts, cancel: cancel, changed: make(chan struct{}, 1), byName: map[string]*member{},
		turns: make(chan struct{}, opts.MaxConnecting)}
	for _, e := range entries {
		e.Command = slices.Clone(e.Command) // the caller's slice may change
		m := &member{f: f, entry: e, refresh: make(chan struct{}, 1), st: Status{Entry: e, Reach: Connecting}}
		f.members = append(f.members, m)
		if _, dup := f.byName[e.Name]; !dup {
			f.byName[e.Name] = m
		}
		if err := e.Check(); err != nil {
			m.st.Reach, m.st.Err = Unreachable, line("config: "+err.Error())
			continue
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			m.run(ctx)
		}()
	}
	return f
}

// Close ends every connection and transport process, and waits for them.
func (f *Fleet) Close() {
	f.cancel()
	f.wg.Wait()
}

// Changed is signalled (coalesced, capacity 1) whenever a Status or the
// Queue changes.
func (f *Fleet) Changed() <-chan struct{} { return f.changed }

func (f *Fleet) signal() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// Statuses are the projects' rows, one per entry in config order: a copy,
// safe to keep. A Glance is shared and never modified once published: do
// not modify it either.
func (f *Fleet) Statuses() []Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Status, len(f.members))
	for i, m := range f.members {
		out[i] = m.st
	}
	return out
}

// Queue is everything that waits for the person across the fleet, oldest
// first: by Wait.Since (an unknown time last), then project name, then key.
// A project that became unreachable keeps its last waits in the queue (its
// row says it is unreachable; answering it fails until it is back).
func (f *Fleet) Queue() []Item {
	f.mu.Lock()
	var out []Item
	for _, m := range f.members {
		if g := m.st.Glance; g != nil {
			for _, w := range g.Waits {
				out = append(out, Item{Project: m.entry.Name, Wait: w, Seq: g.Seq})
			}
		}
	}
	f.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Item) int {
		if az, bz := a.Wait.Since.IsZero(), b.Wait.Since.IsZero(); az != bz {
			if az {
				return 1
			}
			return -1
		}
		return cmp.Or(a.Wait.Since.Compare(b.Wait.Since), strings.Compare(a.Project, b.Project), strings.Compare(a.Wait.Key, b.Wait.Key))
	})
	return out
}

// update changes the member's status under the lock and tells the
// watchers.
func (m *member) update(fn func(st *Status)) {
	m.f.mu.Lock()
	fn(&m.st)
	m.f.mu.Unlock()
	m.f.signal()
}

// poke asks for a new glance; it never blocks (an update notification
// arrives on the connection's reading goroutine).
func (m *member) poke() {
	select {
	case m.refresh <- struct{}{}:
	default:
	}
}

// failure is why a connection ended or could not start.
type failure struct {
	reach Reach // Unreachable or Incompatible
	msg   string
}

func (e *failure) Error() string { return e.msg }

func unreachable(format string, args ...any) *failure {
	return &failure{Unreachable, line(fmt.Sprintf(format, args...))}
}

func incompatible(format string, args ...any) *failure {
	return &failure{Incompatible, line(fmt.Sprintf(format, args...))}
}

// connectInTurn is connect once a turn is free (MaxConnecting); nil, nil
// when ctx ends first.
func (m *member) connectInTurn(ctx context.Context) (*conn, *failure) {
	select {
	case m.f.turns <- struct{}{}:
	case <-ctx.Done():
		return nil, nil
	}
	defer func() { <-m.f.turns }()
	return m.connect(ctx)
}

// run keeps the project connected until ctx ends: connect, serve its
// updates, and after a failure wait (backing off) and connect again.
func (m *member) run(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		c, fail := m.connectInTurn(ctx)
		if c == nil && fail == nil {
			return // closed while waiting for a turn
		}
		if fail == nil {
			up := time.Now()
			fail = m.serve(ctx, c)
			if time.Since(up) >= maxBackoff {
				failures = 0 // it was up a while: not a flapping transport
			}
		}
		if ctx.Err() != nil {
			if c != nil {
				c.close()
			}
			return
		}
		delay := incompatibleRetry
		if fail.reach != Incompatible {
			delay = jitter(min(maxBackoff, minBackoff<<min(failures, 16)))
			failures++
		}
		retry := m.f.opts.Now().Add(delay)
		// The connection goes with the status that says why: an action
		// meanwhile is told the reason.
		m.f.mu.Lock()
		m.conn = nil
		m.st.Reach, m.st.Err, m.st.Retry = fail.reach, fail.msg, retry
		if fail.reach == Incompatible {
			m.st.Glance = nil // a glance of another API is not understood
		}
		m.f.mu.Unlock()
		m.f.signal()
		if c != nil {
			c.close()
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// jitter spreads d by ±20%, so that a fleet's projects do not all retry
// at the same moment.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// conn is one live connection to a project.
type conn struct {
	m       *member
	cs      *sdk.ClientSession
	ss      *sdk.ServerSession // a local project's in-process server
	proc    *proc              // a remote project's transport
	version string

	mu    sync.Mutex
	cause *failure // why the fleet ended the connection itself
}

// close ends the connection and its transport.
func (c *conn) close() {
	if c.cs != nil {
		c.cs.Close()
	}
	if c.ss != nil {
		// The server's session ends once its calls in flight return: one
		// stuck on a busy database (bounded by the lock timeout) must
		// not hold up a reconnection or the fleet's Close.
		go c.ss.Close()
	}
	if c.proc != nil {
		c.proc.stop()
	}
}

// breakWith ends the connection for a reason the serving loop reports.
func (c *conn) breakWith(f *failure) {
	c.mu.Lock()
	if c.cause == nil {
		c.cause = f
	}
	c.mu.Unlock()
	c.cs.Close()
}

// explain turns a transport-level error of a call into a failure: a
// deadline says how long it waited, and a remote's process says how it
// ended and what it last wrote to stderr.
func (c *conn) explain(err error, what string) *failure {
	msg := what + ": " + err.Error()
	timedOut := errors.Is(err, context.DeadlineExceeded)
	if timedOut {
		msg = fmt.Sprintf("no answer within %s (%s)", c.m.f.opts.CallTimeout, what)
	}
	if c.proc != nil {
		exit, last := c.proc.story(300 * time.Millisecond)
		if c.proc.stderr.contains("unknown flag: --person") || c.proc.stderr.contains("unknown flag: --via") {
			return incompatible("the remote flowdeck does not know mcp --person: it is older than this fleet (upgrade it)")
		}
		// A transport that timed out exits when its stdin closes: that
		// exit says nothing.
		if timedOut {
			exit = ""
		}
		if s := join(exit, last); s != "" {
			msg += "; " + s
		}
	}
	return unreachable("%s", msg)
}

// join is "a: b", or the one that is not empty.
func join(a, b string) string {
	if a != "" && b != "" {
		return a + ": " + b
	}
	return a + b
}

// connect starts the transport, does the handshake, subscribes to the
// project's changes and takes its first glance, all within one
// CallTimeout. On success the project is reachable.
func (m *member) connect(ctx context.Context) (*conn, *failure) {
	opts := m.f.opts
	ctx, cancel := context.WithTimeout(ctx, opts.CallTimeout)
	defer cancel()
	c := &conn{m: m}
	copts := &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{}, // no roots: the fleet has none to offer
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			if req.Params != nil && req.Params.URI == ops.FleetGlanceURI {
				m.poke()
			}
		},
	}
	var t sdk.Transport
	if m.entry.Remote() {
		argv := append(slices.Clone(m.entry.Command), "--person", "--via", opts.Origin)
		p, err := startProc(argv)
		if err != nil {
			return nil, unreachable("%v", err)
		}
		c.proc = p
		// The SDK closes both pipes with the session.
		t = &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin, MaxLineLength: MaxMessageBytes}
	} else {
		p, err := project.Open(m.entry.Dir, project.Options{AsRoot: true, Warn: io.Discard, Now: opts.Now})
		if err != nil {
			return nil, unreachable("%v", err)
		}
		// The person, as a remote's `mcp --person --via ORIGIN` serves.
		srv := mcp.NewServer(p, mcp.Options{Version: opts.Version, Person: true, Via: opts.Origin, Actor: opts.Actor})
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			return nil, unreachable("serve %s: %v", m.entry.Dir, err)
		}
		c.ss, t = ss, ct
	}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: opts.Version}, copts)
	cs, err := client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		fail := c.explain(err, "initialize")
		c.close()
		return nil, fail
	}
	c.cs = cs
	if fail := c.handshake(); fail != nil {
		c.close()
		return nil, fail
	}
	// Subscribed before the first glance: a change between the two is
	// not missed.
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ops.FleetGlanceURI}); err != nil {
		fail := c.explain(err, "subscribe")
		if isWire(err) {
			// The server answered: it has no fleet. Its glance, if
			// any, may say more precisely how it differs.
			fail = incompatible("flowdeck %s offers no fleet change notifications (%v): it is older than this fleet (upgrade it)", c.version, err)
			if _, gf := c.glance(ctx); gf != nil && gf.reach == Incompatible {
				fail = gf
			}
		}
		c.close()
		return nil, fail
	}
	g, fail := c.glance(ctx)
	if fail != nil {
		c.close()
		return nil, fail
	}
	m.f.mu.Lock()
	m.conn = c
	m.f.mu.Unlock()
	m.publish(g, c.version)
	return c, nil
}

// handshake checks that the server is flowdeck and keeps its version.
func (c *conn) handshake() *failure {
	res := c.cs.InitializeResult()
	if res == nil || res.ServerInfo == nil {
		return incompatible("the server did not say what it is in the MCP handshake: not flowdeck")
	}
	c.version = cut(line(res.ServerInfo.Version), 64)
	if res.ServerInfo.Name != "flowdeck" {
		return incompatible("not flowdeck's MCP server: %q %s", cut(line(res.ServerInfo.Name), 64), c.version)
	}
	return nil
}

// publish makes g the project's glance: reachable, up to date.
func (m *member) publish(g *ops.FleetGlance, version string) {
	now := m.f.opts.Now()
	m.update(func(st *Status) {
		st.Reach, st.Err, st.Retry = Reachable, "", time.Time{}
		st.Glance, st.Version, st.Updated = g, version, now
	})
}

// serve keeps the project's glance up to date until the connection ends:
// a glance per update notification (coalesced), one at a time.
func (m *member) serve(ctx context.Context, c *conn) *failure {
	done := make(chan error, 1)
	go func() { done <- c.cs.Wait() }()
	// Pings find a half-open transport (a remote host gone without a
	// word): the fleet's own, so that the failure says so.
	var ping <-chan time.Time
	if c.proc != nil {
		t := time.NewTicker(m.f.opts.KeepAlive)
		defer t.Stop()
		ping = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-done:
			return c.ended(err)
		case <-ping:
			cctx, cancel := context.WithTimeout(ctx, m.f.opts.CallTimeout)
			err := c.cs.Ping(cctx, nil)
			cancel()
			if ctx.Err() != nil {
				return nil
			}
			if err != nil && !isWire(err) { // a server without ping still answers
				return c.explain(err, "keep-alive ping")
			}
		case <-m.refresh:
			cctx, cancel := context.WithTimeout(ctx, m.f.opts.CallTimeout)
			g, fail := c.glance(cctx)
			cancel()
			if ctx.Err() != nil {
				return nil
			}
			if fail != nil {
				return fail
			}
			m.publish(g, c.version)
		}
	}
}

// ended says why a connection the fleet did not close ended.
func (c *conn) ended(err error) *failure {
	c.mu.Lock()
	cause := c.cause
	c.mu.Unlock()
	if cause != nil {
		return cause
	}
	msg := "the connection closed"
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
		msg = "the connection broke: " + err.Error()
	}
	if c.proc != nil {
		if s := join(c.proc.story(300 * time.Millisecond)); s != "" {
			msg += "; " + s
		}
	}
	return unreachable("%s", msg)
}

// isWire reports whether err is the server's JSON-RPC error answer (it
// answered, and said no) rather than a transport failure.
func isWire(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

// resultText is a tool result's JSON: its text content (flowdeck's tools
// put the same JSON there as in the structured content).
func resultText(res *sdk.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			return t.Text
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return ""
}

// glance calls fleet_glance and checks, sanitises and bounds the answer.
func (c *conn) glance(ctx context.Context) (*ops.FleetGlance, *failure) {
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: glanceTool, Arguments: map[string]any{}})
	if err != nil {
		if isWire(err) {
			return nil, incompatible("flowdeck %s has no %s tool (%v): it is older than this fleet (upgrade it)", c.version, glanceTool, err)
		}
		return nil, c.explain(err, glanceTool)
	}
	return parseGlance(resultText(res), res.IsError, c.version)
}

// parseGlance checks, decodes, sanitises and bounds the text of a
// fleet_glance answer (isError: the call's error flag) from the flowdeck
// of version (for messages).
func parseGlance(text string, isError bool, version string) (*ops.FleetGlance, *failure) {
	if len(text) > MaxGlanceBytes {
		return nil, unreachable("%s: an answer of %d bytes refused (at most %d)", glanceTool, len(text), MaxGlanceBytes)
	}
	var head struct {
		OK    bool `json:"ok"`
		API   int  `json:"api"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return nil, unreachable("%s: a malformed answer: %v", glanceTool, err)
	}
	if isError || !head.OK {
		why := "no reason given"
		if head.Error != nil {
			why = head.Error.Code + ": " + head.Error.Message
		}
		return nil, unreachable("%s failed: %s", glanceTool, why)
	}
	if head.API != ops.FleetAPI {
		return nil, incompatible("flowdeck %s speaks fleet API %d, this flowdeck %d: upgrade the older one", line(version), head.API, ops.FleetAPI)
	}
	g := &ops.FleetGlance{}
	if err := json.Unmarshal([]byte(text), g); err != nil {
		return nil, unreachable("%s: a malformed answer: %v", glanceTool, err)
	}
	sanitizeGlance(g)
	return g, nil
}
