package fleet

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowdeck/flowdeck/ops"
)

// fakeRemoteFlag makes the test binary a remote of its own: a transport
// command [test binary, fakeRemoteFlag, MODE, STATEFILE, "mcp"] speaks
// MCP on its stdio by hand, so that it can misbehave in every way a
// hostile or broken remote can (see serveFake).
const fakeRemoteFlag = "-fleet-fake-remote"

// fakeRemote is the command of a fake remote in mode, recording to state
// (may be "").
func fakeRemote(mode, state string) []string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return []string{exe, fakeRemoteFlag, mode, state + "-", "mcp"}
}

// hostileText is in every string of the hostile glance: a clipboard write,
// a title, a CSI, a C1 CSI, a bidi override, a newline and a bell.
const hostileText = "x\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e\nnext\a"

// serveFake is the fake remote's main: it answers the MCP handshake,
// subscriptions and pings as flowdeck does, and tools/call as mode says:
//
//	ok        a valid glance (one review waiting); the state file gets its pid
//	okchild   ok, with a child process whose pid the state file gets
//	hostile   a glance whose every string is hostile and lists too long
//	wrongapi  a glance of fleet API 99
//	noglance  no fleet_glance tool (an older flowdeck)
//	toolerror fleet_glance fails with a hostile message
//	malformed a line that is not JSON
//	oversized a 5 MiB line
//	bigglance a valid 2 MiB glance
//	burst     a valid glance after 100 ms; after the first, 50 update
//	          notifications at once; the state file gets "calls max-in-flight"
//	hang      answers the handshake, never a tool call
func serveFake(args []string) {
	mode, state := args[0], strings.TrimSuffix(args[1], "-")
	version := "fake-1"
	if mode == "hostile" {
		version = "9\x1b]0;title\x07\u202e"
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
		mu.Unlock()
	}
	raw := func(s string) {
		mu.Lock()
		out.WriteString(s)
		out.Flush()
		mu.Unlock()
	}
	answer := func(id json.RawMessage, result any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	glanceResult := func(g any, isErr bool) map[string]any {
		b, _ := json.Marshal(g)
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}, "isError": isErr}
	}
	var calls, inFlight, maxInFlight atomic.Int64
	switch {
	case mode == "okchild":
		// A child in the transport's process group: closing the fleet
		// must end it too.
		child := exec.Command("sleep", "1000")
		if child.Start() == nil {
			os.WriteFile(state, fmt.Append(nil, child.Process.Pid), 0o644)
		}
		mode = "ok"
	case mode == "ok" && state != "":
		os.WriteFile(state, fmt.Append(nil, os.Getpid()), 0o644)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		switch req.Method {
		case "initialize":
			answer(req.ID, map[string]any{"protocolVersion": "2025-11-25",
				"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{"subscribe": true}},
				"serverInfo":   map[string]any{"name": "flowdeck", "version": version}})
		case "resources/subscribe", "ping":
			answer(req.ID, map[string]any{})
		case "tools/call":
			switch mode {
			case "ok":
				answer(req.ID, glanceResult(okGlance(), false))
			case "hostile":
				answer(req.ID, glanceResult(hostileGlance(), false))
			case "wrongapi":
				answer(req.ID, glanceResult(map[string]any{"ok": true, "api": 99, "goal": 7}, false))
			case "noglance":
				send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32602, "message": `unknown tool "fleet_glance"`}})
			case "toolerror":
				answer(req.ID, glanceResult(map[string]any{"ok": false, "error": map[string]any{"code": "internal", "message": "db " + hostileText}}, true))
			case "malformed":
				raw("{\"jsonrpc\":\"2.0\",\"id\":" + string(req.ID) + ",\"result\":{\x1b]0;t\x07 nope\n")
			case "oversized":
				raw("{\"jsonrpc\":\"2.0\",\"id\":" + string(req.ID) + ",\"result\":{\"x\":\"" + strings.Repeat("a", 5<<20) + "\"}}\n")
			case "bigglance":
				g := okGlance()
				g.Goal = strings.Repeat("g", 2<<20)
				answer(req.ID, glanceResult(g, false))
			case "burst":
				n := calls.Add(1)
				go func() {
					cur := inFlight.Add(1)
					for m := maxInFlight.Load(); cur > m && !maxInFlight.CompareAndSwap(m, cur); m = maxInFlight.Load() {
					}
					time.Sleep(100 * time.Millisecond)
					inFlight.Add(-1)
					os.WriteFile(state, fmt.Appendf(nil, "%d %d", calls.Load(), maxInFlight.Load()), 0o644)
					g := okGlance()
					g.Seq = uint64(n) // which call the fleet published last
					answer(req.ID, glanceResult(g, false))
					if n == 1 {
						for range 50 {
							send(map[string]any{"jsonrpc": "2.0", "method": "notifications/resources/updated",
								"params": map[string]any{"uri": ops.FleetGlanceURI}})
						}
					}
				}()
			case "hang":
			}
		}
	}
}

// okGlance is a project with one review waiting.
func okGlance() *ops.FleetGlance {
	return &ops.FleetGlance{OK: true, API: ops.FleetAPI, Root: "/srv/app", Seq: 7, Goal: "ship it", Status: "executing", Done: 1, Total: 2,
		Active: []ops.FleetActive{{Feature: "parser", Agent: "worker-1", State: "in_progress"}},
		Waits: []ops.FleetWait{{Kind: ops.FleetWaitReview, Key: "review:parser:1", Label: "review parser", Feature: "parser",
			Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}}
}

// hostileGlance has hostile text in every string and lists beyond every
// bound (within MaxGlanceBytes).
func hostileGlance() *ops.FleetGlance {
	long := strings.Repeat("é", 5000) + hostileText
	g := &ops.FleetGlance{OK: true, API: ops.FleetAPI, Root: hostileText, Session: hostileText, Goal: long, Status: hostileText,
		Done: -5, Total: -1, NextCommand: hostileText}
	for range 200 {
		g.Active = append(g.Active, ops.FleetActive{Feature: hostileText, Title: hostileText, Agent: hostileText, State: hostileText})
	}
	for i := range 300 {
		w := ops.FleetWait{Kind: hostileText, Key: hostileText, Label: hostileText, Feature: hostileText, Decision: hostileText, Reason: hostileText,
			Options: []ops.FleetOption{{ID: hostileText, Label: hostileText}}}
		if i == 0 {
			w.Label, w.Reason = long, long
			w.Options[0].Label = long
			for range 100 {
				w.Options = append(w.Options, ops.FleetOption{ID: hostileText, Label: hostileText})
			}
		}
		g.Waits = append(g.Waits, w)
	}
	return g
}
