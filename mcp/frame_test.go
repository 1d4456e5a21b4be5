package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/project"
)

// wire drives Serve over pipes with raw lines, as a broken client would.
type wire struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func startWire(t *testing.T, st *db.Store, maxLine int) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, lines: make(chan map[string]any, 1024), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		w.done <- Serve(ctx, project.FromStore(st, project.Options{Warn: io.Discard}), Options{MaxLineBytes: maxLine}, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			w.lines <- m
		}
		close(w.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-w.done
	})
	return w
}

func (w *wire) send(line []byte) {
	w.t.Helper()
	if _, err := w.in.Write(line); err != nil {
		w.t.Fatalf("server stopped reading: %v", err)
	}
}

// until returns the replies up to and including the one with id; it fails
// when the server ends first (or, as a guard only, after a minute).
func (w *wire) until(id string) []map[string]any {
	w.t.Helper()
	var got []map[string]any
	guard := time.After(time.Minute)
	for {
		select {
		case m, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("the server ended before answering %s; replies: %v", id, got)
			}
			got = append(got, m)
			if m["id"] == id {
				return got
			}
		case <-guard:
			w.t.Fatalf("no answer to %s; replies: %v", id, got)
		}
	}
}

// probe sends a ping and returns every reply up to its answer.
func (w *wire) probe(n int) []map[string]any {
	id := fmt.Sprintf("probe-%d", n)
	w.send([]byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}` + "\n"))
	return w.until(id)
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func openStore(t testing.TB) *db.Store {
	st, err := db.Open(filepath.Join(t.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestMalformedFramesAreAnsweredAndServingGoesOn(t *testing.T) {
	const limit = 4096
	w := startWire(t, openStore(t), limit)
	cases := []struct {
		name, line string
		code       float64
		id         any // the reply's id
		says       string
	}{
		{"garbage", "not json at all", -32700, nil, "parse error"},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"pi`, -32700, nil, "parse error"},
		{"version 1.0", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, -32600, 8.0, `"2.0"`},
		{"no version", `{"id":"x","method":"ping"}`, -32600, "x", `"2.0"`},
		{"batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, nil, "batch"},
		{"empty batch", `[]`, -32600, nil, "batch"},
		{"scalar", `42`, -32600, nil, "object"},
		{"null", `null`, -32600, nil, ""},
		{"method not a string", `{"jsonrpc":"2.0","id":10,"method":5}`, -32600, 10.0, "method"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil, "id"},
		{"params a string", `{"jsonrpc":"2.0","id":11,"method":"ping","params":"x"}`, -32600, 11.0, "params"},
		{"response without result", `{"jsonrpc":"2.0","id":12}`, -32600, 12.0, "result"},
		{"deep", `{"jsonrpc":"2.0","id":13,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + "}}", -32600, 13.0, "limit is 64"},
		{"too long", `{"jsonrpc":"2.0","id":14,"method":"ping","params":{"x":"` + strings.Repeat("a", 3*limit) + `"}}`, -32600, 14.0, "limit is 4096 bytes"},
		{"huge unterminated string", `"` + strings.Repeat("b", 10*limit), -32600, nil, "too long"},
	}
	for i, c := range cases {
		w.send([]byte(c.line + "\n"))
		got := w.probe(i)
		if len(got) != 2 {
			t.Fatalf("%s: want one error and the probe's answer, got %v", c.name, got)
		}
		e := got[0]
		msg, _ := e["error"].(map[string]any)["message"].(string)
		if errCode(e) != c.code || e["id"] != c.id || !strings.Contains(msg, c.says) || e["jsonrpc"] != "2.0" {
			t.Errorf("%s: reply %v, want code %v id %v saying %q", c.name, e, c.code, c.id, c.says)
		}
		if got[1]["error"] != nil {
			t.Errorf("%s: the following ping failed: %v", c.name, got[1])
		}
	}
	// Blank lines and CRLF are fine and answer nothing.
	w.send([]byte("\n  \r\n"))
	if got := w.probe(100); len(got) != 1 {
		t.Fatalf("blank lines were answered: %v", got)
	}
}

// Valid messages split over writes, several on one write, and CRLF ends all
// pass through unchanged.
func TestGoodFramesPassThrough(t *testing.T) {
	w := startWire(t, openStore(t), 0)
	w.send([]byte(`{"jsonrpc":"2.0","id":"a","met`))
	w.send([]byte(`hod":"ping"}` + "\r\n" + `{"jsonrpc":"2.0","id":"b","method":"ping"}` + "\n"))
	// The SDK answers requests concurrently: the replies may come in either
	// order, so wait for both.
	got := w.until("b")
	if len(got) == 1 {
		got = append(got, w.until("a")...)
	}
	ids := map[any]bool{}
	for _, r := range got {
		if r["error"] != nil {
			t.Fatalf("replies %v", got)
		}
		ids[r["id"]] = true
	}
	if len(got) != 2 || !ids["a"] || !ids["b"] {
		t.Fatalf("replies %v", got)
	}
}

// The limit on a line is the real one: a line just under it reaches the
// server (a parse error from the SDK would end the session), one over it is
// refused, and the server serves on.
func TestRealLineLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 32 MB")
	}
	w := startWire(t, openStore(t), 0)
	pad := func(n int) string {
		head := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`
		return head + strings.Repeat("x", n-len(head)-3) + `"}}`
	}
	w.send([]byte(pad(MaxLineBytes) + "\n"))
	if got := w.until("big"); got[len(got)-1]["error"] != nil {
		t.Fatalf("a line at the limit was refused: %v", got)
	}
	w.send([]byte(pad(MaxLineBytes+1) + "\n"))
	got := w.until("big")
	msg, _ := got[len(got)-1]["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, fmt.Sprint(MaxLineBytes)) {
		t.Fatalf("over-long line: %v", got)
	}
	if got := w.probe(1); got[len(got)-1]["error"] != nil {
		t.Fatalf("ping after an over-long line: %v", got)
	}
}

// FuzzFrames: whatever a client sends, every line the filter refuses is
// answered with a JSON-RPC error, and a ping sent after it is answered.
func FuzzFrames(f *testing.F) {
	for _, seed := range []string{
		"garbage\x00\xff",
		`{"jsonrpc":"2.0","id":1,"method":"pi`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":["ping"],"params":7}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		strings.Repeat(`{"a":[`, 200),
		strings.Repeat("z", 5000),
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}` + "\n" + `{"id":1e400}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}` + "\r\n" + `{`,
	} {
		f.Add([]byte(seed))
	}
	st := openStore(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("probe-")) {
			return // the probe's id must stay ours
		}
		const limit = 2048
		refused := 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			tooLong := len(line) > limit
			if reply, _ := checkFrame(line, tooLong, limit, MaxDepth); reply != nil {
				refused++
			}
		}
		w := startWire(t, st, limit)
		w.send(append(data, '\n'))
		got := w.probe(0)
		errs := 0
		for _, m := range got {
			if m["unparsable"] != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("not a JSON-RPC reply: %v", m)
			}
			if c := errCode(m); c == -32700 || c == -32600 {
				errs++
			}
		}
		if errs < refused {
			t.Fatalf("%d lines refused, %d error replies: %v", refused, errs, got)
		}
		if got[len(got)-1]["error"] != nil {
			t.Fatalf("ping after the input failed: %v", got[len(got)-1])
		}
	})
}
