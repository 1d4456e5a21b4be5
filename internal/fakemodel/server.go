// Package fakemodel is a scripted stand-in for a model provider on
// 127.0.0.1, so that real agent clients (Claude Code, opencode) can be
// driven through flowdeck in tests without a network or a key. One server
// speaks both the Anthropic Messages API (POST /v1/messages) and the OpenAI
// chat-completions API (POST /v1/chat/completions), streaming (server-sent
// events) and not, and answers each request of the agent's main loop with
// the next step of a script.
package fakemodel

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Step is one answer of the model: a tool call (Tool, Input) or, with Tool
// empty, a final text.
type Step struct {
	Tool  string
	Input any
	Text  string
}

// Server is the fake provider.
type Server struct {
	// URL is http://127.0.0.1:PORT: ANTHROPIC_BASE_URL, or with /v1 an
	// OpenAI base URL.
	URL string
	// Latency is how long each answer of a main loop takes (set before
	// the first request): a real model thinks for seconds, and that
	// waiting is what agents at once overlap.
	Latency time.Duration

	// pick is the script of the conversation a request belongs to.
	pick func(*Request) []Step
	// isMain tells the agent's main loop from its side requests (titles,
	// summaries), which get a short text: requests that offer tools.
	isMain func(*Request) bool
	srv    *http.Server

	mu       sync.Mutex
	requests []*Request
}

// New serves script on a free port of 127.0.0.1 until Close, over both
// APIs.
func New(script []Step) (*Server, error) {
	return NewRouted(func(*Request) []Step { return script })
}

// NewRouted is New with a script per conversation: pick chooses it from
// the request (by its prompt, say), so that agents of several roles, all
// sent to one URL, each follow their own.
func NewRouted(pick func(*Request) []Step) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &Server{URL: "http://" + ln.Addr().String(), pick: pick,
		isMain: func(r *Request) bool { return len(r.Tools) > 0 }}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", a.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"input_tokens": 100})
	})
	mux.HandleFunc("POST /v1/chat/completions", a.chatCompletions)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": r.URL.Path}})
	})
	a.srv = &http.Server{Handler: mux}
	go a.srv.Serve(ln)
	return a, nil
}

// Close stops the server.
func (a *Server) Close() error { return a.srv.Close() }

// Requests are the model requests so far (both APIs), in order.
func (a *Server) Requests() []*Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*Request(nil), a.requests...)
}

// Main are the requests of the agent's main loop.
func (a *Server) Main() []*Request {
	var out []*Request
	for _, r := range a.Requests() {
		if a.isMain(r) {
			out = append(out, r)
		}
	}
	return out
}

// answer records req and picks its step: the main loop's next step of the
// script, counted by the tool calls in its history ("done" after the
// last), or "ok" for a side request.
func (a *Server) answer(req *Request) Step {
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.mu.Unlock()
	if !a.isMain(req) {
		return Step{Text: "ok"}
	}
	time.Sleep(a.Latency)
	if script, i := a.pick(req), req.toolUses(); i < len(script) {
		return script[i]
	}
	return Step{Text: "done"}
}
