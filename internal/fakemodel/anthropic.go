package fakemodel

// The Anthropic Messages API, POST /v1/messages. Its request shape is also
// the package's normalized Request, into which OpenAI requests are turned.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Request is what the client sent, decoded; an OpenAI chat-completions
// request is translated into this (Anthropic) shape, so that tests read
// both alike.
type Request struct {
	API      string           `json:"-"` // "anthropic" or "openai"
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	System   json.RawMessage  `json:"system"`
	Messages []Message        `json:"messages"`
	Tools    []map[string]any `json:"tools"`
	Raw      string           `json:"-"`
}

// Message is one turn of the conversation; Content is a string or blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Block is one content block of a message.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// Blocks are the message's content blocks (a string content is one text
// block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	json.Unmarshal(m.Content, &bs)
	return bs
}

// HasTool reports whether the request offers the model a tool named name.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t["name"] == name {
			return true
		}
	}
	return false
}

// toolUses counts the tool calls the model made so far in the conversation:
// the script's position.
func (r *Request) toolUses() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Blocks() {
			if b.Type == "tool_use" {
				n++
			}
		}
	}
	return n
}

func (a *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := &Request{API: "anthropic", Raw: string(body)}
	if err := json.Unmarshal(body, req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	step := a.answer(req)
	id := fmt.Sprintf("toolu_%02d", req.toolUses())
	if req.Stream {
		stream(w, req.Model, step, id)
		return
	}
	writeJSON(w, message(req.Model, step, id))
}

// block is the step as a finished content block, and its stop reason.
func block(step Step, id string) (map[string]any, string) {
	if step.Tool == "" {
		return map[string]any{"type": "text", "text": step.Text}, "end_turn"
	}
	input := step.Input
	if input == nil {
		input = map[string]any{}
	}
	return map[string]any{"type": "tool_use", "id": id, "name": step.Tool, "input": input}, "tool_use"
}

func message(model string, step Step, id string) map[string]any {
	b, stop := block(step, id)
	return map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": model,
		"content": []any{b}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10}}
}

// stream writes the step as the Messages API's server-sent events: the
// message, one content block started, its delta, stopped, and the stop.
func stream(w http.ResponseWriter, model string, step Step, id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	msg := message(model, step, id)
	msg["content"], msg["stop_reason"] = []any{}, nil
	send := func(event string, data map[string]any) {
		data["type"] = event
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, raw)
	}
	send("message_start", map[string]any{"message": msg})
	b, stop := block(step, id)
	var delta map[string]any
	if step.Tool == "" {
		delta = map[string]any{"type": "text_delta", "text": step.Text}
		b["text"] = ""
	} else {
		raw, _ := json.Marshal(b["input"])
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(raw)}
		b["input"] = map[string]any{}
	}
	send("content_block_start", map[string]any{"index": 0, "content_block": b})
	send("content_block_delta", map[string]any{"index": 0, "delta": delta})
	send("content_block_stop", map[string]any{"index": 0})
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// ResultText is a tool result's content as text: a string, or its text
// blocks joined.
func (b Block) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var bs []Block
	json.Unmarshal(b.Content, &bs)
	var out strings.Builder
	for _, x := range bs {
		out.WriteString(x.Text)
	}
	return out.String()
}

// ToolResults are the tool results the client sent back in r, by the name
// of the tool that was called.
func (r *Request) ToolResults() map[string][]Block {
	names := map[string]string{}
	out := map[string][]Block{}
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			switch b.Type {
			case "tool_use":
				names[b.ID] = b.Name
			case "tool_result":
				out[names[b.ToolUseID]] = append(out[names[b.ToolUseID]], b)
			}
		}
	}
	return out
}

// Text is every text of the request's messages, joined: what the model
// was shown (hooks' additional context arrives as text).
func (r *Request) Text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		for _, blk := range m.Blocks() {
			b.WriteString(blk.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
