package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The real `flowdeck mcp`, fed garbage between real calls on its stdin,
// answers every line and serves on; it ends only when stdin does.
func TestBinaryServesThroughMalformedInput(t *testing.T) {
	cmd := exec.Command(bin, "--dir", t.TempDir(), "mcp")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewScanner(outPipe)
	out.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("the server stopped reading: %v", err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		if !out.Scan() {
			t.Fatalf("the server ended: %v", out.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", out.Text())
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bad := []struct {
		line string
		code float64
	}{
		{"}{ garbage", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/ca`, -32700},
		{`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`, -32600},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, -32600},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000) + "}", -32600},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"flow_note","arguments":{"text":"` + strings.Repeat("n", 17<<20) + `"}}}`, -32600},
	}
	// Well-formed but odd messages reach the SDK, which answers them (or,
	// for notifications and stray responses, ignores them) and serves on.
	odd := []string{
		`{"jsonrpc":"2.0","id":"o1","method":"tools/call","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":"o2","method":"no/such/method","params":{}}`,
		`{"jsonrpc":"2.0","id":"o3","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"o4","method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"o5","method":"tools/call","params":{"name":"flow_note","arguments":"text"}}`,
	}
	for _, line := range odd {
		send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nobody"}}`)
		send(`{"jsonrpc":"2.0","id":"never-sent","result":{}}`)
		send(line)
		if m := next(); m["id"] == nil || (m["error"] == nil && m["result"] == nil) {
			t.Fatalf("%s: reply %.300v", line, m)
		}
	}
	for i, b := range bad {
		send(b.line)
		m := next()
		e, _ := m["error"].(map[string]any)
		if e["code"] != b.code {
			t.Fatalf("line %d: reply %.300v, want code %v", i, m, b.code)
		}
		id := fmt.Sprintf("ok-%d", i)
		send(`{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"flow_status","arguments":{}}}`)
		if m := next(); m["id"] != id || m["result"] == nil {
			t.Fatalf("line %d: the call after it got %.300v", i, m)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server exited with %v when its input ended", err)
	}
}
