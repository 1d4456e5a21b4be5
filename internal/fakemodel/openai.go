package fakemodel

// The OpenAI chat-completions API, POST /v1/chat/completions: the request
// is translated into the Anthropic-shaped Request (system messages to
// System, tool_calls to tool_use blocks, role "tool" messages to
// tool_result blocks), answered from the same script, and written back as
// a chat.completion or a stream of chat.completion.chunk events.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

type oaRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []oaMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, null, or parts
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// text is a message content's text: the string, or its text parts joined.
func (m oaMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []Block
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// normalize turns a chat-completions request into a Request.
func (o *oaRequest) normalize(raw []byte) *Request {
	req := &Request{API: "openai", Model: o.Model, Stream: o.Stream, Raw: string(raw)}
	var system []string
	for _, m := range o.Messages {
		var blocks []Block
		role := m.Role
		switch m.Role {
		case "system", "developer":
			system = append(system, m.text())
			continue
		case "tool":
			content, _ := json.Marshal(m.text())
			role, blocks = "user", []Block{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: content}}
		default:
			if t := m.text(); t != "" {
				blocks = append(blocks, Block{Type: "text", Text: t})
			}
			for _, c := range m.ToolCalls {
				input := json.RawMessage(c.Function.Arguments)
				if !json.Valid(input) {
					input, _ = json.Marshal(c.Function.Arguments)
				}
				blocks = append(blocks, Block{Type: "tool_use", ID: c.ID, Name: c.Function.Name, Input: input})
			}
		}
		content, _ := json.Marshal(blocks)
		req.Messages = append(req.Messages, Message{Role: role, Content: content})
	}
	if system != nil {
		req.System, _ = json.Marshal(strings.Join(system, "\n"))
	}
	for _, t := range o.Tools {
		req.Tools = append(req.Tools, map[string]any{"name": t.Function.Name,
			"description": t.Function.Description, "input_schema": t.Function.Parameters})
	}
	return req
}

func (a *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var o oaRequest
	if err := json.Unmarshal(body, &o); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	req := o.normalize(body)
	step := a.answer(req)
	id := fmt.Sprintf("call_%02d", req.toolUses())
	if o.Stream {
		streamChunks(w, o.Model, step, id, o.StreamOptions != nil && o.StreamOptions.IncludeUsage)
		return
	}
	msg, finish := choiceMessage(step, id)
	writeJSON(w, map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": 0,
		"model": o.Model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": oaUsage()})
}

func oaUsage() map[string]any {
	return map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
}

// choiceMessage is the step as an assistant message, and its finish
// reason.
func choiceMessage(step Step, id string) (map[string]any, string) {
	if step.Tool == "" {
		return map[string]any{"role": "assistant", "content": step.Text}, "stop"
	}
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": id, "type": "function", "function": map[string]any{"name": step.Tool, "arguments": arguments(step)}}}}, "tool_calls"
}

// arguments is a tool call's input as the JSON text OpenAI sends.
func arguments(step Step) string {
	if step.Input == nil {
		return "{}"
	}
	raw, _ := json.Marshal(step.Input)
	return string(raw)
}

// streamChunks writes the step as chat.completion.chunk events: the role,
// the text or the tool call (its id and name, then its arguments, as the
// API splits them), the finish reason, the usage when asked for, and
// [DONE].
func streamChunks(w http.ResponseWriter, model string, step Step, id string, usage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(choices []any, extra map[string]any) {
		chunk := map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 0,
			"model": model, "choices": choices}
		for k, v := range extra {
			chunk[k] = v
		}
		raw, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", raw)
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}
	}
	send(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	finish := "stop"
	if step.Tool == "" {
		send(delta(map[string]any{"content": step.Text}, nil), nil)
	} else {
		finish = "tool_calls"
		call := func(c map[string]any) map[string]any { return map[string]any{"tool_calls": []any{c}} }
		send(delta(call(map[string]any{"index": 0, "id": id, "type": "function",
			"function": map[string]any{"name": step.Tool, "arguments": ""}}), nil), nil)
		send(delta(call(map[string]any{"index": 0, "function": map[string]any{"arguments": arguments(step)}}), nil), nil)
	}
	send(delta(map[string]any{}, finish), nil)
	if usage {
		send([]any{}, map[string]any{"usage": oaUsage()})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
