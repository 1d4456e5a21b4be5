package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/termtext"
)

type noteKind int

const (
	noteInfo noteKind = iota
	noteOK
	noteErr
)

// note is the status line: the result of the last action or command, or an
// error. A refusal keeps its structure (code, message, hint, next command)
// so the person sees what is missing and what would help.
type note struct {
	kind  noteKind
	lines []string
}

// How long a note stays: a result for a glance, an error long enough to
// be read (esc clears it sooner).
const (
	noteTTL    = 8 * time.Second
	errNoteTTL = 30 * time.Second
)

// stampNote notes when the status line changed, so it can expire.
// A note quotes foreign text (run headlines, errors, refusals), so its lines
// are cleaned here, once per new note, not in View.
func (m *Model) stampNote() {
	k := strings.Join(m.note.lines, "\n")
	if k == m.noteKey {
		return
	}
	if !termtext.Safe(k) {
		lines := make([]string, len(m.note.lines))
		for i, l := range m.note.lines {
			lines[i] = termtext.String(l)
		}
		m.note.lines, k = lines, strings.Join(lines, "\n")
		if k == m.noteKey {
			return
		}
	}
	m.noteKey, m.noteAt = k, m.now()
}

// expireNote clears a note that has been shown long enough (checked on
// every poll).
func (m *Model) expireNote() {
	if len(m.note.lines) == 0 {
		return
	}
	ttl := noteTTL
	if m.note.kind == noteErr {
		ttl = errNoteTTL
	}
	if m.now().Sub(m.noteAt) >= ttl {
		m.note = note{}
	}
}

func infoNote(s string) note { return note{noteInfo, []string{s}} }
func okNote(s string) note   { return note{noteOK, []string{"✓ " + s}} }
func errNote(s string) note  { return note{noteErr, []string{"✗ " + s}} }

func refusalNote(e *model.Error) note {
	lines := []string{fmt.Sprintf("✗ refused (%s): %s", e.Code, e.Message)}
	if e.Recovery.Hint != "" {
		lines = append(lines, "  hint: "+e.Recovery.Hint)
	}
	if e.Recovery.NextCommand != "" {
		lines = append(lines, "  next: "+e.Recovery.NextCommand)
	}
	return note{noteErr, lines}
}

// configNote reports config problems; the cockpit runs on with defaults for
// whatever was wrong.
func configNote(errs []error) note {
	lines := make([]string, 0, len(errs))
	for i, e := range errs {
		if i == 2 && len(errs) > 3 {
			lines = append(lines, fmt.Sprintf("  … and %d more config problems", len(errs)-2))
			break
		}
		lines = append(lines, "✗ config (defaults used): "+e.Error())
	}
	return note{noteErr, lines}
}

// keyErrors attaches the config file and the line of the [keys] entry to
// rebinding errors.
func keyErrors(c config.Config, errs []error) []error {
	if len(errs) == 0 {
		return nil
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		msg := e.Error()
		name := ""
		if i := strings.Index(msg, "\""); i >= 0 {
			if j := strings.Index(msg[i+1:], "\""); j >= 0 {
				name = msg[i+1 : i+1+j]
			}
		}
		where := c.Path
		if line := c.LineOf(name); line > 0 {
			where = fmt.Sprintf("%s:%d", c.Path, line)
		}
		out = append(out, errors.New(where+": [keys] "+msg))
	}
	return out
}
