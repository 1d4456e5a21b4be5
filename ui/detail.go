package ui

import (
	"fmt"
	"regexp"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/panes/output"
)

// docKind is what the detail pane shows.
type docKind int

const (
	docFeature docKind = iota // the selected feature's doc
	docIndex                  // the session's index.md
	docHistory                // sessions and the session's history
)

// renderedMsg carries a glamour render.
type renderedMsg struct {
	key   string
	lines []string
}

// cacheMax bounds the rendered docs kept; re-rendering is cheap, memory for
// 500 features × widths is not.
const cacheMax = 64

// detailKey names one render: the session state (id and seq), the document,
// the width and the style. Any change makes a new key.
func (m *Model) detailKey() string {
	w := m.lay.Rects[layout.Detail].W - 2
	sid, seq := "", uint64(0)
	if m.sess != nil {
		sid, seq = m.sess.ID, m.sess.Seq
	}
	doc := "index"
	switch {
	case m.doc == docHistory:
		doc = fmt.Sprintf("history:%d", len(m.sessions))
	case m.doc == docFeature && m.sess != nil && m.sess.Plan != nil && m.sel != "":
		doc = "feature:" + m.sel
	}
	return fmt.Sprintf("%s@%d|%s|%d|%s", sid, seq, doc, w, m.glamourStyle())
}

// glamourStyle follows the background. Under NO_COLOR the dark or light
// style is still right: the renderer's colour profile drops the colours and
// keeps bold and italics, where glamour's notty style would print "**".
func (m *Model) glamourStyle() string {
	if m.th.Dark {
		return "dark"
	}
	return "light"
}

// refreshDetail shows the current doc: from the cache, or by starting a
// render in a command (glamour takes milliseconds; never in Update).
func (m *Model) refreshDetail() tea.Cmd {
	if !m.loaded || m.lay.Rects[layout.Detail].W < 6 {
		return nil
	}
	key := m.detailKey()
	if key == m.detail.Key() {
		return nil
	}
	if lines, ok := m.cache[key]; ok {
		m.detail.SetLines(key, lines)
		return nil
	}
	m.detail.SetPending(true)
	if m.inflight[key] {
		return nil
	}
	m.inflight[key] = true
	md := m.markdown()
	width, style := m.lay.Rects[layout.Detail].W-2, m.glamourStyle()
	return func() tea.Msg {
		return renderedMsg{key: key, lines: renderMarkdown(md(), width, style)}
	}
}

// markdown returns a function that builds the doc's markdown; it runs in the
// command, on values that are never mutated (sessions are replaced whole).
func (m *Model) markdown() func() string {
	s, sel, sessions := m.sess, m.sel, m.sessions
	switch {
	case m.doc == docHistory:
		return func() string { return historyMarkdown(s, sessions) }
	case s == nil:
		return func() string { return welcomeMarkdown(sessions) }
	case m.doc == docFeature && s.Plan != nil && s.Plan.Feature(sel) != nil:
		return func() string { return render.RenderFeature(s, s.Plan.Feature(sel)) }
	}
	return func() string { return render.RenderIndex(s) }
}

func (m *Model) onRendered(msg renderedMsg) {
	delete(m.inflight, msg.key)
	if _, ok := m.cache[msg.key]; !ok {
		m.cacheAge = append(m.cacheAge, msg.key)
		if len(m.cacheAge) > cacheMax {
			delete(m.cache, m.cacheAge[0])
			m.cacheAge = m.cacheAge[1:]
		}
	}
	m.cache[msg.key] = msg.lines
	if msg.key == m.detailKey() {
		m.detail.SetLines(msg.key, msg.lines)
	}
}

// renderMarkdown renders with glamour, falling back to the plain text.
func renderMarkdown(md string, width int, style string) []string {
	md = narrowTables(dropRelativeLinks(md), width)
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(max(10, width-4)))
	var out string
	if err == nil {
		out, err = r.Render(md)
	}
	if err != nil {
		out = md
	}
	out = strings.Trim(out, "\n")
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		// Glamour writes OSC 8 hyperlinks; relative doc links mean nothing
		// in a terminal, and only SGR may reach the frame.
		lines[i] = strings.TrimRight(output.Sanitize(l), " ")
	}
	return lines
}

// tableColW is the narrowest column a table may have before it reads
// better as a list.
const tableColW = 14

// narrowTables turns the markdown tables that would not fit width into
// lists, one row per item, cells joined by " · ": glamour squeezes a wide
// table into columns a few characters wide.
func narrowTables(md string, width int) string {
	if !strings.Contains(md, "|---") {
		return md
	}
	lines := strings.Split(md, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		cols := tableCells(lines[i])
		sep := i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|---")
		if !sep || len(cols) == 0 || len(cols)*tableColW <= width {
			out = append(out, lines[i])
			continue
		}
		i++ // the separator
		for i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|") {
			i++
			var cells []string
			for _, c := range tableCells(lines[i]) {
				if c != "" && c != "-" {
					cells = append(cells, c)
				}
			}
			out = append(out, "- "+strings.Join(cells, " · "))
		}
	}
	return strings.Join(out, "\n")
}

// tableCells splits a markdown table row into trimmed cells (escaped pipes
// stay in their cell).
func tableCells(line string) []string {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "|") || !strings.HasSuffix(t, "|") || len(t) < 2 {
		return nil
	}
	t = strings.ReplaceAll(t[1:len(t)-1], `\|`, "\x00")
	parts := strings.Split(t, "|")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.TrimSpace(p), "\x00", `\|`)
	}
	return parts
}

// relLink is a markdown link to another doc file: in the docs directory it
// leads somewhere, in the detail pane it would print its path.
var relLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s:]*)\)`)

// dropRelativeLinks keeps the text of links to relative paths.
func dropRelativeLinks(md string) string {
	if !strings.Contains(md, "](") {
		return md
	}
	return relLink.ReplaceAllString(md, "$1")
}

func welcomeMarkdown(sessions []model.SessionInfo) string {
	var b strings.Builder
	b.WriteString("# No active session\n\nStart one from the command line: press `:` and type `/flow-plan GOAL`.\n\n")
	if len(sessions) > 0 {
		b.WriteString("## Stored sessions\n\nRe-activate one with `/flow-session ID`.\n\n")
		writeSessions(&b, sessions)
	}
	return b.String()
}

func historyMarkdown(s *model.Session, sessions []model.SessionInfo) string {
	var b strings.Builder
	b.WriteString("# History\n\n## Sessions\n\n")
	if len(sessions) == 0 {
		b.WriteString("No sessions yet.\n\n")
	}
	writeSessions(&b, sessions)
	if s != nil {
		fmt.Fprintf(&b, "## Session `%s`\n\n", s.ID)
		h := s.Execution.History
		if s.Execution.HistoryTotal > len(h) {
			fmt.Fprintf(&b, "The newest %d of %d items (`flowdeck flow history %s` has all).\n\n", len(h), s.Execution.HistoryTotal, s.ID)
		}
		for i := len(h) - 1; i >= 0; i-- {
			it := h[i]
			fmt.Fprintf(&b, "- %d · %s · %s · %s\n", it.Seq, it.At.UTC().Format("2006-01-02 15:04:05"), it.Actor, mdEscape(it.Summary))
		}
	}
	return b.String()
}

func writeSessions(b *strings.Builder, sessions []model.SessionInfo) {
	for _, si := range sessions {
		mark := ""
		if si.Active {
			mark = " **(active)**"
		}
		state := string(si.Status)
		if si.Archived {
			state += ", archived"
		}
		fmt.Fprintf(b, "- `%s`%s %s %d/%d: %s\n", si.ID, mark, state, si.Completed, si.Features, mdEscape(si.Goal))
	}
	b.WriteString("\n")
}

// mdEscape keeps free text from turning into markdown structure.
func mdEscape(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "<", "&lt;", "#", "\\#", "\n", " ")
	return r.Replace(s)
}
