package fakemodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func postChat(t *testing.T, a *Server, body string) *http.Response {
	t.Helper()
	res, err := http.Post(a.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %s", res.Status)
	}
	return res
}

// chunk is the part of a chat.completion.chunk a client reads.
type chunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// readChunks reads a chat-completions stream as a client does: data lines
// up to [DONE], the tool call assembled from its deltas.
func readChunks(t *testing.T, res *http.Response) (id, name, args, finish string, usage bool) {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	done := false
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v", data, err)
		}
		usage = usage || c.Usage != nil && c.Usage.TotalTokens > 0
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				id, name, args = id+tc.ID, name+tc.Function.Name, args+tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if !done {
		t.Fatal("the stream did not end with [DONE]")
	}
	return id, name, args, finish, usage
}

// The main loop of an OpenAI client gets the same script: the step as
// streamed tool_calls deltas, then, with the call and its result in the
// history, the final text as a chat.completion; the history reads back
// in the normalized shape.
func TestOpenAIScript(t *testing.T) {
	a, err := New([]Step{{Tool: "look", Input: map[string]any{"deep": true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tools := `"tools":[{"type":"function","function":{"name":"look","parameters":{"type":"object"}}}]`
	res := postChat(t, a, `{"model":"m","stream":true,"stream_options":{"include_usage":true},`+tools+`,
		"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"go"}]}`)
	id, name, args, finish, usage := readChunks(t, res)
	if id != "call_00" || name != "look" || args != `{"deep":true}` || finish != "tool_calls" || !usage {
		t.Fatalf("call %q %q %q, finish %q, usage %v", id, name, args, finish, usage)
	}
	res = postChat(t, a, `{"model":"m",`+tools+`,"messages":[
		{"role":"system","content":"be brief"},
		{"role":"user","content":[{"type":"text","text":"go"},{"type":"text","text":" <hud>"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_00","type":"function","function":{"name":"look","arguments":"{\"deep\":true}"}}]},
		{"role":"tool","tool_call_id":"call_00","content":"seen"}]}`)
	var done struct {
		Object  string `json:"object"`
		Choices []struct {
			Message      struct{ Content string } `json:"message"`
			FinishReason string                   `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(res.Body).Decode(&done); err != nil || done.Object != "chat.completion" ||
		len(done.Choices) != 1 || done.Choices[0].Message.Content != "done" || done.Choices[0].FinishReason != "stop" {
		t.Fatalf("final: %+v %v", done, err)
	}
	// A side request (no tools) gets text, streamed when asked.
	res = postChat(t, a, `{"model":"m","stream":true,"messages":[{"role":"user","content":"title?"}]}`)
	if _, name, _, finish, usage := readChunks(t, res); name != "" || finish != "stop" || usage {
		t.Fatalf("side request: %q %q %v", name, finish, usage)
	}
	main := a.Main()
	if len(a.Requests()) != 3 || len(main) != 2 {
		t.Fatalf("%d requests, %d main", len(a.Requests()), len(main))
	}
	last := main[1]
	r := last.ToolResults()["look"]
	if last.API != "openai" || len(r) != 1 || r[0].ResultText() != "seen" || !last.HasTool("look") {
		t.Fatalf("tool results %+v", r)
	}
	if text := last.Text(); !strings.Contains(text, "go <hud>") || strings.Contains(text, "be brief") {
		t.Fatalf("text %q", text)
	}
	if string(last.System) != `"be brief"` {
		t.Fatalf("system %s", last.System)
	}
}

// The text step streams as content deltas; a body that is not JSON is an
// OpenAI-shaped error.
func TestOpenAITextAndError(t *testing.T) {
	a, err := New([]Step{{Text: "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res := postChat(t, a, `{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"x"}}],"messages":[{"role":"user","content":"hi"}]}`)
	var text strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		var c chunk
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(data), &c) == nil {
			for _, ch := range c.Choices {
				text.WriteString(ch.Delta.Content)
			}
		}
	}
	if text.String() != "hello" {
		t.Fatalf("text %q", text.String())
	}
	bad, err := http.Post(a.URL+"/v1/chat/completions", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Body.Close()
	var e struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	if json.NewDecoder(bad.Body).Decode(&e); bad.StatusCode != 400 || e.Error.Type != "invalid_request_error" {
		t.Fatalf("%s %+v", bad.Status, e)
	}
}

// Whatever a client posts, normalizing it does not panic, and every tool
// call and tool result of the history is kept in the Anthropic shape.
func FuzzNormalize(f *testing.F) {
	f.Add(`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"n","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"r"}]}]}`)
	f.Add(`{"messages":[{"role":"system","content":[{"type":"text","text":"s"}]},{"role":"user","content":"u"}],"tools":[{"type":"function","function":{"name":"t"}}]}`)
	f.Add(`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"n","arguments":"not json"}}]}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var o oaRequest
		if json.Unmarshal([]byte(body), &o) != nil {
			return
		}
		calls, results := 0, 0
		for _, m := range o.Messages {
			switch m.Role {
			case "system", "developer":
			case "tool":
				results++
			default:
				calls += len(m.ToolCalls)
			}
		}
		req := o.normalize([]byte(body))
		uses, got := 0, 0
		for _, m := range req.Messages {
			for _, b := range m.Blocks() {
				switch {
				case b.Type == "tool_use" && json.Valid(b.Input):
					uses++
				case b.Type == "tool_result":
					got++
				}
			}
		}
		if uses != calls || got != results {
			t.Fatalf("%d calls, %d results became %d and %d", calls, results, uses, got)
		}
	})
}
