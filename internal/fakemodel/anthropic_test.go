package fakemodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, a *Server, body string) *http.Response {
	t.Helper()
	res, err := http.Post(a.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// The main loop gets the script step by step, counted by the tool calls in
// its history, as the Messages API's events; side requests get text.
func TestScriptAsEvents(t *testing.T) {
	a, err := New([]Step{{Tool: "look", Input: map[string]any{"deep": true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res := post(t, a, `{"model":"m","stream":true,"tools":[{"name":"look"}],"messages":[{"role":"user","content":"go"}]}`)
	var events []string
	var input strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, ev)
		}
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var d struct {
				Delta struct {
					PartialJSON string `json:"partial_json"`
				} `json:"delta"`
			}
			json.Unmarshal([]byte(data), &d)
			input.WriteString(d.Delta.PartialJSON)
		}
	}
	want := "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(events, " ") != want || input.String() != `{"deep":true}` {
		t.Fatalf("events %v, input %q", events, input.String())
	}
	// After the step: the final text, not streamed.
	res = post(t, a, `{"model":"m","tools":[{"name":"look"}],"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_00","name":"look","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_00","content":[{"type":"text","text":"seen"}],"is_error":true}]}]}`)
	var msg struct {
		Content    []Block `json:"content"`
		StopReason string  `json:"stop_reason"`
	}
	if err := json.NewDecoder(res.Body).Decode(&msg); err != nil || msg.StopReason != "end_turn" || msg.Content[0].Text != "done" {
		t.Fatalf("final: %+v %v", msg, err)
	}
	// A side request (no tools) is not part of the main loop.
	post(t, a, `{"model":"m","messages":[{"role":"user","content":"title?"}]}`)
	main := a.Main()
	if len(a.Requests()) != 3 || len(main) != 2 {
		t.Fatalf("%d requests, %d main", len(a.Requests()), len(main))
	}
	r := main[1].ToolResults()["look"]
	if len(r) != 1 || !r[0].IsError || r[0].ResultText() != "seen" || !main[1].HasTool("look") {
		t.Fatalf("tool results %+v", r)
	}
}
