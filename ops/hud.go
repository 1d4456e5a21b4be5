package ops

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
	"github.com/flowdeck/flowdeck/termtext"
)

// HUD limits: the block goes in front of every prompt of an agent, so it
// must stay small whatever the goal, ids or commands look like.
const (
	HUDMaxLines = 12
	HUDMaxBytes = 1024
	// hudMaxItems bounds the verification commands and the waits shown;
	// with the fixed lines that keeps a HUD within HUDMaxLines.
	hudMaxItems = 3
)

// HUD is the compact status of a project for an agent's context window.
type HUD struct {
	OK bool `json:"ok"`
	// Seq is the active session's last event and At when the HUD was made:
	// the first line says both, so that of several HUDs in a context the
	// model can tell which is current.
	Seq  uint64    `json:"seq,omitempty"`
	At   time.Time `json:"at,omitzero"`
	Goal string    `json:"goal,omitempty"`
	// You says who reads it when flowdeck launched the reader (BuildHUDFor).
	You    string      `json:"you,omitempty"`
	Status string      `json:"status"`
	Active *HUDFeature `json:"active,omitempty"`
	// Claims lists every active feature when more than one is (max_parallel
	// > 1), oldest claim first; ClaimsMore counts those cut from the list.
	Claims         []HUDClaim `json:"active_features,omitempty"`
	ClaimsMore     int        `json:"active_features_more,omitempty"`
	Waits          []string   `json:"waits,omitempty"`
	LastValidation string     `json:"last_validation,omitempty"`
	NextCommand    string     `json:"next_command"`
	// Agents are each agent's last lifecycle event (e.g. idle) and when:
	// JSON only, the latest hudMaxItems.
	Agents []model.AgentEvent `json:"agents,omitempty"`
}

// HUDFeature is the active feature and how to verify it.
type HUDFeature struct {
	ID           string   `json:"id"`
	Title        string   `json:"title,omitempty"`
	State        string   `json:"state"`
	Agent        string   `json:"agent,omitempty"`
	Verification []string `json:"verification,omitempty"`
}

// HUDClaim is one of several active features: its agent, its state and the
// command that moves it on.
type HUDClaim struct {
	ID    string `json:"id"`
	Agent string `json:"agent,omitempty"`
	State string `json:"state"`
	Next  string `json:"next"`
}

func (*HUD) Refusal() *model.Error { return nil }

// BuildHUD reads the active session (a single read of its materialized
// state, however long its log) and says what matters now. A nil st is a
// project without a database: nothing to say yet.
func BuildHUD(st *db.Store) (*HUD, error) {
	if st == nil {
		return hudOf(nil), nil
	}
	g, err := st.Glance() // one open of the database, not three
	if err != nil {
		return nil, err
	}
	return hudOfGlance(g), nil
}

// hudOfGlance is the HUD of what a glance at the store read.
func hudOfGlance(g *db.Glance) *HUD {
	h := hudOf(g.Active)
	h.Agents = g.Agents
	// A pending decision suspends a flow: it comes first.
	var waits []string
	for _, d := range g.Decisions {
		waits = append(waits, "decision "+d.ID+": "+d.Prompt)
	}
	h.Waits = append(waits, h.Waits...)
	return h
}

// HookClaude is the object Claude Code's UserPromptSubmit hook prints: the
// HUD as context for the prompt.
func HookClaude(hud string) any {
	return map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "UserPromptSubmit", "additionalContext": hud}}
}

func hudOf(s *model.Session) *HUD {
	h := &HUD{OK: true, NextCommand: model.NextCommand(s)}
	if s == nil {
		h.Status = "no active session"
		return h
	}
	h.Goal, h.Seq = s.Goal, s.Seq
	if s.Plan == nil {
		h.Status = string(s.Status) + ", " + render.ProgressText(nil)
		return h
	}
	h.Status = fmt.Sprintf("%s, plan %s, %s", model.StatusText(s), s.Approval, render.ProgressText(s.Plan))
	if s.Approval != model.ApprovalApproved && s.Status != model.StatusCompleted { // also after a replan while others ran on
		h.Waits = append(h.Waits, "plan approval")
	}
	for i := range s.Plan.Features {
		f := &s.Plan.Features[i]
		state := model.StateOf(s, f)
		if f.ID == s.Execution.ActiveFeature {
			h.Active = &HUDFeature{ID: f.ID, Title: f.Title, State: string(state), Agent: f.Agent, Verification: f.Verification}
		}
		switch state {
		case model.StateAwaitingReview:
			h.Waits = append(h.Waits, "review of "+f.ID+" (validation passed)")
		case model.StateNeedsFix:
			h.Waits = append(h.Waits, "fix of "+f.ID+": "+needsFixWhy(f))
		case model.StateInterrupted:
			why := ""
			if f.Interrupted.Summary != "" {
				why = ": " + f.Interrupted.Summary
			}
			h.Waits = append(h.Waits, "decision on interrupted "+f.ID+why)
		case model.StateBlocked:
			why := f.OutcomeNote
			if why == "" {
				why = string(f.Outcome)
			}
			h.Waits = append(h.Waits, "blocked "+f.ID+": "+why)
		}
	}
	if steps := model.NextSteps(s); len(model.ActiveClaims(s)) > 1 {
		for _, st := range steps {
			if f := s.Plan.Feature(st.Feature); f != nil {
				h.Claims = append(h.Claims, HUDClaim{ID: f.ID, Agent: st.Agent, State: string(model.StateOf(s, f)), Next: st.Command})
			}
		}
	}
	if model.AwaitingFinalReview(s) {
		h.Waits = append(h.Waits, "final review of the session")
	}
	if s.Status == model.StatusBlocked {
		if why := model.BlockReasons(s.Plan); why != "" {
			h.Waits = append(h.Waits, "session blocked: "+why)
		}
	}
	if v := s.Execution.LastValidation; v != nil {
		what := v.Summary
		if what == "" {
			what = v.Command
		}
		h.LastValidation = fmt.Sprintf("%s %s %s (%s): %s", v.Feature, v.Scope, v.Status, v.Source, what)
	}
	return h
}

// needsFixWhy says whether the review or the validation sent f back.
func needsFixWhy(f *model.Feature) string {
	if n := len(f.Reviews); n > 0 && f.Reviews[n-1].Decision != model.ReviewApproved {
		return "review " + string(f.Reviews[n-1].Decision)
	}
	return "validation failed"
}

// hudCaps are the rune limits per field tried in turn until a rendering
// fits in HUDMaxBytes. The next command keeps more room than the rest, so it
// stays whole (and runnable) as long as possible; the last pair fits even
// when every rune takes four bytes, or six as a JSON escape.
var hudCaps = []struct{ field, next int }{{200, 300}, {120, 300}, {80, 240}, {48, 200}, {24, 160}, {12, 12}}

// Render writes the HUD as "text", "markdown" or "json" within the limits.
func (h *HUD) Render(format string) (string, error) {
	var draw func(*HUD) string
	switch format {
	case "", "text":
		draw = hudText
	case "markdown":
		draw = hudMarkdown
	case "json":
		draw = hudJSON
	default:
		return "", ArgErrorf("unknown format %q: text, markdown or json", format)
	}
	var out string
	for _, c := range hudCaps {
		out = draw(h.clipped(c.field, c.next))
		if len(out) <= HUDMaxBytes {
			break
		}
	}
	return out, nil
}

// clipped is a copy whose strings are one line each, at most n runes (next
// for the next command), and whose lists are cut to hudMaxItems (the rest
// counted in the last item).
func (h *HUD) clipped(n, next int) *HUD {
	c := *h
	c.Goal, c.Status, c.LastValidation, c.NextCommand = clip(h.Goal, n), clip(h.Status, n), clip(h.LastValidation, n), clipCommand(h.NextCommand, next)
	c.You = clip(h.You, n)
	c.Waits = clipList(h.Waits, n)
	if h.Active != nil {
		a := *h.Active
		a.ID, a.Title, a.State = clip(a.ID, n), clip(a.Title, n), clip(a.State, n)
		a.Agent = clip(a.Agent, n)
		a.Verification = clipList(a.Verification, n)
		c.Active = &a
	}
	c.Claims = nil
	for i, a := range h.Claims {
		if i == hudMaxItems-1 && len(h.Claims) > hudMaxItems {
			c.ClaimsMore = h.ClaimsMore + len(h.Claims) - i
			break
		}
		c.Claims = append(c.Claims, HUDClaim{ID: clip(a.ID, n), Agent: clip(a.Agent, n), State: clip(a.State, n), Next: clipCommand(a.Next, next)})
	}
	c.Agents = latestAgents(h.Agents, n)
	return &c
}

// latestAgents keeps the hudMaxItems agents heard from last, names clipped.
func latestAgents(evs []model.AgentEvent, n int) []model.AgentEvent {
	out := slices.Clone(evs)
	slices.SortStableFunc(out, func(a, b model.AgentEvent) int { return b.At.Compare(a.At) })
	if len(out) > hudMaxItems {
		out = out[:hudMaxItems]
	}
	for i := range out {
		out[i].Agent, out[i].Event = clip(out[i].Agent, n), clip(out[i].Event, n)
	}
	return out
}

// stamp is what the first line says about when the HUD was made: the
// session's sequence number and the time, in UTC.
func (h *HUD) stamp() string {
	if h.At.IsZero() {
		return ""
	}
	at := h.At.UTC().Format(digest.StampLayout) // the lean binary writes the time of printing there
	if h.Seq == 0 {
		return " (" + at + ")"
	}
	return fmt.Sprintf(" (seq %d, %s)", h.Seq, at)
}

// claimState is "state" or "state, agent NAME".
func claimState(state, agent string) string {
	if agent == "" {
		return state
	}
	return state + ", agent " + agent
}

// moreItems starts the item that stands for the ones cut from a list.
const moreItems = "… and "

func clipList(items []string, n int) []string {
	if len(items) == 0 {
		return nil
	}
	out := make([]string, 0, hudMaxItems)
	for i, it := range items {
		if i == hudMaxItems-1 && len(items) > hudMaxItems {
			out = append(out, fmt.Sprintf("%s%d more", moreItems, len(items)-i))
			break
		}
		out = append(out, clip(it, n))
	}
	return out
}

// clip makes s one line of at most n runes, without escape sequences or
// control characters (termtext: a \r cannot hide what precedes it).
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError {
			return -1
		}
		return r
	}, termtext.Line(s))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipCommand keeps a command whole or not at all: cut short it would no
// longer run, so one that does not fit becomes the status command, which
// shows it whole.
func clipCommand(s string, n int) string {
	if c := clip(s, n); c == termtext.Line(s) {
		return c
	}
	return "flowdeck flow status"
}

func hudText(h *HUD) string {
	var b strings.Builder
	if h.Goal != "" {
		fmt.Fprintf(&b, "flowdeck%s: %s\n", h.stamp(), h.Goal)
	} else {
		fmt.Fprintf(&b, "flowdeck%s\n", h.stamp())
	}
	if h.You != "" {
		fmt.Fprintf(&b, "you: %s\n", h.You)
	}
	fmt.Fprintf(&b, "status: %s\n", h.Status)
	if len(h.Claims) > 0 { // several active: each with its agent and next step, no verify lines
		for _, a := range h.Claims {
			fmt.Fprintf(&b, "active: %s (%s) → %s\n", a.ID, claimState(a.State, a.Agent), a.Next)
		}
		if h.ClaimsMore > 0 {
			fmt.Fprintf(&b, "active: %s%d more\n", moreItems, h.ClaimsMore)
		}
	} else if a := h.Active; a != nil {
		fmt.Fprintf(&b, "active: %s — %s (%s)\n", a.ID, a.Title, claimState(a.State, a.Agent))
		for _, v := range a.Verification {
			fmt.Fprintf(&b, "  verify: %s\n", v)
		}
	}
	for _, w := range h.Waits {
		fmt.Fprintf(&b, "waits: %s\n", w)
	}
	if h.LastValidation != "" {
		fmt.Fprintf(&b, "last validation: %s\n", h.LastValidation)
	}
	fmt.Fprintf(&b, "next: %s\n", h.NextCommand)
	return b.String()
}

func hudMarkdown(h *HUD) string {
	var b strings.Builder
	b.WriteString("**flowdeck**" + h.stamp())
	if h.Goal != "" {
		fmt.Fprintf(&b, ": %s", h.Goal)
	}
	b.WriteString("\n")
	if h.You != "" {
		fmt.Fprintf(&b, "- you: %s\n", h.You)
	}
	fmt.Fprintf(&b, "- status: %s\n", h.Status)
	if len(h.Claims) > 0 {
		for _, a := range h.Claims {
			fmt.Fprintf(&b, "- active: %s (%s) → %s\n", code(a.ID), claimState(a.State, a.Agent), code(a.Next))
		}
		if h.ClaimsMore > 0 {
			fmt.Fprintf(&b, "- active: %s%d more\n", moreItems, h.ClaimsMore)
		}
	} else if a := h.Active; a != nil {
		fmt.Fprintf(&b, "- active: %s — %s (%s)\n", code(a.ID), a.Title, claimState(a.State, a.Agent))
		for _, v := range a.Verification {
			if !strings.HasPrefix(v, moreItems) {
				v = code(v)
			}
			fmt.Fprintf(&b, "  - verify: %s\n", v)
		}
	}
	for _, w := range h.Waits {
		fmt.Fprintf(&b, "- waits: %s\n", w)
	}
	if h.LastValidation != "" {
		fmt.Fprintf(&b, "- last validation: %s\n", h.LastValidation)
	}
	fmt.Fprintf(&b, "- next: %s\n", code(h.NextCommand))
	return b.String()
}

// code is an inline code span that survives backticks inside s.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func hudJSON(h *HUD) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(h) // plain strings and slices: cannot fail
	return string(termtext.JSON([]byte(b.String())))
}
