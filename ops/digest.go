package ops

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
	"github.com/flowdeck/flowdeck/termtext"
)

// EncodeJSON is a result object as flowdeck prints it for agents: indented,
// HTML characters as they are, C1 and bidi characters escaped
// (termtext.JSON), and a final newline.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return termtext.JSON(b.Bytes()), nil
}

// statusText is `flowdeck flow status` for people: render.Status as the
// CLI's stdout sanitises it, so that no escape sequence or control
// character from a goal, an id or a summary reaches a terminal.
func statusText(s *model.Session) []byte {
	var b strings.Builder
	render.Status(&b, s)
	return []byte(termtext.Visible(b.String()))
}

// stampTime is the time a HUD is rendered at for the digest. Its text is
// found in the rendering and marked, and the lean binary writes the time
// of printing over it.
var stampTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Digest is what the lean binary prints for `flow status` (text and
// --json) and `hud` (text, markdown, Claude Code's hook) from g, for db
// to store beside the state it shows (package digest).
func Digest(g *db.Glance) (digest.Digest, error) {
	d, err := statusDigest(g.Active)
	if err != nil {
		return digest.Digest{}, err
	}
	h := hudOfGlance(g)
	h.At = stampTime
	text, err := h.Render("text")
	if err != nil {
		return digest.Digest{}, err
	}
	markdown, err := h.Render("markdown")
	if err != nil {
		return digest.Digest{}, err
	}
	hook, err := EncodeJSON(HookClaude(text))
	if err != nil {
		return digest.Digest{}, err
	}
	d.HUDText, d.HUDMarkdown = stamped([]byte(termtext.Visible(text))), stamped([]byte(termtext.Visible(markdown)))
	d.HUDHook = stamped(hook)
	return d, nil
}

// Bounds of the flow status kept in the digest. Every write rewrites the
// digest, and a plan of thousands of features would make each one render
// and store hundreds of KiB; beyond them the status parts are left empty
// and the lean binary hands flow status to flowdeck-cli. The HUD is
// bounded by design (HUDMaxBytes) and always kept.
const (
	statusDigestFeatures = 200
	statusDigestBytes    = 64 << 10
)

// statusDigest is flow status for s, as text and --json, or neither when
// it would be too large to rewrite at every write.
func statusDigest(s *model.Session) (digest.Digest, error) {
	if s != nil && s.Plan != nil && len(s.Plan.Features) > statusDigestFeatures {
		return digest.Digest{}, nil
	}
	// Pinned evidence may be stale by now: only flowdeck-cli, which looks
	// at the code, can say (ops.Status); the lean binary hands it on.
	if model.Pinned(s) {
		return digest.Digest{}, nil
	}
	js, err := EncodeJSON(statusOf(s, false, nil))
	if err != nil {
		return digest.Digest{}, err
	}
	text := statusText(s)
	if len(text)+len(js) > statusDigestBytes {
		return digest.Digest{}, nil
	}
	return digest.Digest{StatusText: text, StatusJSON: js}, nil
}

// stamped marks the HUD's time stamp in out: its first occurrence, which
// precedes any text of the session's (the stamp opens the HUD's first
// line, and the hook's object begins with the HUD). Without one, the lean
// binary does not answer from out.
func stamped(out []byte) digest.Stamped {
	return digest.Stamped{Out: out, At: bytes.Index(out, []byte(stampTime.Format(digest.StampLayout)))}
}
