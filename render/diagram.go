package render

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/model"
)

// The plan's dependency graph, drawn for `flowdeck diagram` and the docs.
// Every renderer here is pure and deterministic: plan order, then Levels().

// nodeStatus is how a diagram shows a feature: a tag for the ascii drawing and
// a class for mermaid and dot. It is derived from StateOf.
type nodeStatus struct {
	Tag   string // ascii tag, e.g. "[OK]"
	Class string // mermaid class name
	Label string // words, for legends and dot labels
}

var (
	statusOK    = nodeStatus{"[OK]", "ok", "completed"}
	statusRun   = nodeStatus{"[RUN]", "run", "in progress"}
	statusWait  = nodeStatus{"[WAIT]", "wait", "awaiting review"}
	statusFail  = nodeStatus{"[FAIL]", "fail", "needs fix"}
	statusBlock = nodeStatus{"[BLOCK]", "block", "blocked"}
	statusPend  = nodeStatus{"[PEND]", "pend", "pending"}
	// statusInt is a claimed feature whose agent crashed or gave up. It is
	// explained and styled only in drawings that have one, so plans without
	// it draw as they always did.
	statusInt = nodeStatus{"[INT]", "int", "interrupted"}
	// allStatuses is the legend order.
	allStatuses = []nodeStatus{statusOK, statusRun, statusWait, statusFail, statusBlock, statusPend}
)

// agentMark is " @AGENT" for a feature an agent works on now, else "".
func agentMark(f *model.Feature) string {
	if f.Status != model.FeatureInProgress || f.Agent == "" {
		return ""
	}
	return " @" + diagramText(f.Agent)
}

func statusFor(s *model.Session, f *model.Feature) nodeStatus {
	switch model.StateOf(s, f) {
	case model.StateCompleted:
		return statusOK
	case model.StateInProgress:
		return statusRun
	case model.StateAwaitingReview:
		return statusWait
	case model.StateNeedsFix:
		return statusFail
	case model.StateInterrupted:
		return statusInt
	case model.StateBlocked:
		return statusBlock
	}
	return statusPend
}

// Diagram draws the plan of s in format "ascii" (also the default, for ""),
// "mermaid" or "dot".
func Diagram(s *model.Session, format string) (string, error) {
	switch format {
	case "ascii", "":
		return DiagramASCII(s), nil
	case "mermaid":
		return DiagramMermaid(s), nil
	case "dot":
		return DiagramDOT(s), nil
	}
	return "", model.InvalidArgument("format", "unknown diagram format %q: use ascii, mermaid or dot", cleanText(format, false))
}

// asciiMaxWidth bounds the ascii drawing so it fits a wide terminal; long
// dependency lists wrap inside their frame instead of widening it.
const asciiMaxWidth = 120

// DiagramASCII draws the plan as one box-drawing frame per topological level
// (Levels), top to bottom, joined by ▼:
//
//	oauth-login · 3/7 features completed · 7 features in 4 levels
//
//	┌─ level 0 · 2 features ────────────────────────────────────────┐
//	│ [OK]    db-schema                                             │
//	│ [OK]    config-loader                                         │
//	└───────────────────────────────┬───────────────────────────────┘
//	                                ▼
//	┌─ level 1 · 2 features ────────────────────────────────────────┐
//	│ [OK]    token-store      ← db-schema, config-loader           │
//	│ [BLOCK] rate-limit       ← config-loader                      │
//	└───────────────────────────────┬───────────────────────────────┘
//	                                ▼
//	┌─ level 2 · 2 features ────────────────────────────────────────┐
//	│ [WAIT]  oauth-callback   ← token-store                        │
//	│ [PEND]  session-refresh  ← token-store; blocked by rate-limit │
//	└───────────────────────────────────────────────────────────────┘
//
// Each feature is one row: its status tag, its id, then "← deps" naming what
// it depends on and "blocked by ..." naming its blockers. Edges are written
// as the names at the arrow's tail rather than drawn as lines, because lines
// between dozens of nodes are unreadable and names can be searched. A level
// lists its features as rows however many there are, so a wide level grows
// down, not right; dependency lists wrap inside the frame, ids longer than
// the id column put theirs on the rows below, and no line is wider than
// asciiMaxWidth columns. All frames share one width. A legend closes the
// drawing.
func DiagramASCII(s *model.Session) string {
	if s == nil || s.Plan == nil {
		return "no plan yet\n"
	}
	p := s.Plan
	if len(p.Features) == 0 {
		return "the plan has no features\n"
	}
	levels := model.Levels(p.Features)
	titles := make([]string, len(levels))
	for i, lvl := range levels {
		titles[i] = fmt.Sprintf("level %d · %s", i, plural(len(lvl), "feature", "features"))
	}
	var b strings.Builder
	header := diagramText(s.ID) + " · " + ProgressText(p)
	if levels == nil {
		// Only a corrupt plan has a cycle; draw it unordered rather than nothing.
		cycle := model.FindCycle(p.Features)
		ids := make([]string, len(p.Features))
		for i, f := range p.Features {
			ids[i] = f.ID
		}
		levels = [][]string{ids}
		titles = []string{"unordered: dependency cycle " + strings.Join(cycle, " → ")}
		header += " · dependency cycle"
	} else {
		header += " · " + plural(len(p.Features), "feature", "features") + " in " + plural(len(levels), "level", "levels")
	}
	b.WriteString(truncate(header, asciiMaxWidth))
	b.WriteString("\n\n")

	lay := newASCIILayout(p.Features, titles)
	for li, lvl := range levels {
		inner := lay.inner
		title := truncate(titles[li], inner-2)
		b.WriteString("┌─ " + title + " " + strings.Repeat("─", inner-utf8.RuneCountInString(title)-1) + "┐\n")
		for _, id := range lvl {
			f := p.Feature(id)
			for _, row := range lay.rows(s, f) {
				b.WriteString("│ " + padRight(row, inner) + " │\n")
			}
		}
		mid := (inner + 2) / 2
		if li < len(levels)-1 {
			b.WriteString("└" + strings.Repeat("─", mid) + "┬" + strings.Repeat("─", inner+1-mid) + "┘\n")
			b.WriteString(strings.Repeat(" ", mid+1) + "▼\n")
		} else {
			b.WriteString("└" + strings.Repeat("─", inner+2) + "┘\n")
		}
	}
	b.WriteString("\n")
	b.WriteString(asciiLegend(s))
	return b.String()
}

const (
	asciiTagW = len("[BLOCK]")
	// asciiIDColMax caps the id column so that a few long ids do not push
	// every row's dependencies to the right: the column fits the longest id
	// up to this width, and longer ids list their dependencies below.
	asciiIDColMax = 32
	// asciiBelowIndent is where dependencies start when they go below the id.
	asciiBelowIndent = asciiTagW + 1 + 2
)

// asciiLayout is the geometry every row of one drawing shares, so all frames
// have the same width and the columns line up.
type asciiLayout struct {
	idCol int // width of the id column
	inner int // width inside a frame
}

func newASCIILayout(features []model.Feature, titles []string) asciiLayout {
	var l asciiLayout
	for _, f := range features {
		if n := runeLen(diagramText(f.ID)); n <= asciiIDColMax {
			l.idCol = max(l.idCol, n)
		}
	}
	for _, t := range titles {
		l.inner = max(l.inner, runeLen(t)+2)
	}
	for i := range features {
		id := runeLen(diagramText(features[i].ID))
		deps := runeLen(strings.Join(depTokens(&features[i]), " "))
		switch {
		case deps == 0:
			l.inner = max(l.inner, asciiTagW+1+id)
		case id <= l.idCol:
			l.inner = max(l.inner, l.prefixW()+deps)
		default:
			l.inner = max(l.inner, asciiTagW+1+id, asciiBelowIndent+deps)
		}
	}
	l.inner = min(l.inner, asciiMaxWidth-4) // "│ " and " │"
	return l
}

// prefixW is where dependencies start when they share the id's row.
func (l asciiLayout) prefixW() int { return asciiTagW + 1 + l.idCol + 2 }

// rows lays out one feature: tag, id, then its dependencies wrapped to the
// frame, on the id's row when the id and every dependency fit there, else on
// the rows below it.
func (l asciiLayout) rows(s *model.Session, f *model.Feature) []string {
	id := truncate(diagramText(f.ID)+agentMark(f), l.inner-asciiTagW-1)
	head := padRight(statusFor(s, f).Tag, asciiTagW) + " " + id
	tokens := depTokens(f)
	if len(tokens) == 0 {
		return []string{head}
	}
	avail := l.inner - l.prefixW()
	fits := runeLen(id) <= l.idCol
	for _, t := range tokens {
		fits = fits && runeLen(t) <= avail
	}
	if fits {
		lines := wrapTokens(tokens, avail, 2)
		rows := make([]string, len(lines))
		rows[0] = padRight(head, l.prefixW()) + lines[0]
		for i := 1; i < len(lines); i++ {
			rows[i] = strings.Repeat(" ", l.prefixW()) + lines[i]
		}
		return rows
	}
	rows := []string{head}
	for _, line := range wrapTokens(tokens, l.inner-asciiBelowIndent, 2) {
		rows = append(rows, strings.Repeat(" ", asciiBelowIndent)+line)
	}
	return rows
}

// depTokens is "← a, b; blocked by c" cut into the pieces a line may break
// between, so an arrow never ends a line without the id it points from.
func depTokens(f *model.Feature) []string {
	var out []string
	group := func(lead string, ids []string) {
		for i, d := range ids {
			t := diagramText(d)
			if i == 0 {
				t = lead + t
			}
			if i < len(ids)-1 {
				t += ","
			}
			out = append(out, t)
		}
	}
	group("← ", f.DependsOn)
	if len(f.BlockedBy) > 0 && len(out) > 0 {
		out[len(out)-1] += ";"
	}
	group("blocked by ", f.BlockedBy)
	return out
}

// wrapTokens joins tokens with spaces into lines of at most width runes;
// continuation lines are indented by hang spaces. A token longer than a line
// is cut.
func wrapTokens(tokens []string, width, hang int) []string {
	width = max(width, 1)
	if hang >= width {
		hang = 0 // a line must make progress
	}
	var lines []string
	cur := ""
	for _, t := range tokens {
		switch {
		case cur == "":
			cur = t
		case runeLen(cur)+1+runeLen(t) <= width:
			cur += " " + t
		default:
			lines = append(lines, cur)
			cur = strings.Repeat(" ", hang) + t
		}
		for runeLen(cur) > width {
			r := []rune(cur)
			lines = append(lines, string(r[:width]))
			cur = strings.Repeat(" ", hang) + string(r[width:])
		}
	}
	return append(lines, cur)
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// anyInterrupted reports whether a feature of s reads interrupted.
func anyInterrupted(s *model.Session) bool {
	for i := range s.Plan.Features {
		if statusFor(s, &s.Plan.Features[i]) == statusInt {
			return true
		}
	}
	return false
}

// legendStatuses is the legend order, with [INT] when s has one.
func legendStatuses(s *model.Session) []nodeStatus {
	if anyInterrupted(s) {
		return append(slices.Clone(allStatuses), statusInt)
	}
	return allStatuses
}

// asciiLegend explains the tags, three to a line so no line gets wide.
func asciiLegend(s *model.Session) string {
	var b strings.Builder
	line := ""
	sts := legendStatuses(s)
	for i, st := range sts {
		line += padRight(st.Tag+" "+st.Label, 24)
		if i%3 == 2 || i == len(sts)-1 {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = ""
		}
	}
	b.WriteString("← depends on  blocked by: waits for a blocker to complete\n")
	return b.String()
}

// diagramText makes text safe for a terminal drawing: one line, no controls.
func diagramText(s string) string { return strings.TrimSpace(cleanText(s, false)) }

func padRight(s string, w int) string {
	if n := utf8.RuneCountInString(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// truncate shortens s to at most w runes, marking the cut with "…".
func truncate(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	if w < 1 {
		return ""
	}
	return string([]rune(s)[:w-1]) + "…"
}

// mermaidTitleMax keeps node labels short enough for a readable layout.
const mermaidTitleMax = 40

// mermaidClassDefs style the nodes by status. The palette reads on light and
// dark backgrounds; blocked nodes are dashed so status never relies on color
// alone.
var mermaidClassDefs = []string{
	"classDef ok fill:#d3f9d8,stroke:#2f9e44,color:#1b4332",
	"classDef run fill:#d0ebff,stroke:#1c7ed6,color:#0b3d91,stroke-width:2px",
	"classDef wait fill:#fff3bf,stroke:#f08c00,color:#5c3c00,stroke-width:2px",
	"classDef fail fill:#ffe3e3,stroke:#e03131,color:#7d1a1a,stroke-width:2px",
	"classDef block fill:#e9ecef,stroke:#495057,color:#212529,stroke-dasharray:5 5",
	"classDef pend fill:#ffffff,stroke:#adb5bd,color:#495057",
}

// mermaidIntClassDef is the interrupted look: the failed colours, dashed.
const mermaidIntClassDef = "classDef int fill:#ffe3e3,stroke:#e03131,color:#7d1a1a,stroke-width:2px,stroke-dasharray:5 5"

// DiagramMermaid draws the plan as a mermaid flowchart: one node per feature
// labelled with its id and title, depends_on edges as arrows, blocked_by edges
// dashed, and a class per status.
func DiagramMermaid(s *model.Session) string {
	var b strings.Builder
	b.WriteString("graph TD\n")
	if s == nil || s.Plan == nil || len(s.Plan.Features) == 0 {
		b.WriteString("  empty[\"no plan yet\"]\n")
		return b.String()
	}
	p := s.Plan
	for _, f := range p.Features {
		label := mermaidText(f.ID, model.MaxFeatureIDLen) + "<br/>" + mermaidText(f.Title, mermaidTitleMax)
		if mark := agentMark(&f); mark != "" {
			label += "<br/>" + mermaidText(strings.TrimSpace(mark), model.MaxAgentNameLen+1)
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", mermaidID(f.ID), label)
	}
	for _, f := range p.Features {
		for _, d := range f.DependsOn {
			fmt.Fprintf(&b, "  %s --> %s\n", mermaidID(d), mermaidID(f.ID))
		}
		for _, d := range f.BlockedBy {
			fmt.Fprintf(&b, "  %s -.-> %s\n", mermaidID(d), mermaidID(f.ID))
		}
	}
	for _, c := range mermaidClassDefs {
		b.WriteString("  " + c + "\n")
	}
	if anyInterrupted(s) {
		b.WriteString("  " + mermaidIntClassDef + "\n")
	}
	groups := map[string][]string{}
	for i := range p.Features {
		st := statusFor(s, &p.Features[i])
		groups[st.Class] = append(groups[st.Class], mermaidID(p.Features[i].ID))
	}
	for _, st := range legendStatuses(s) { // fixed order, not map order
		if ids := groups[st.Class]; len(ids) > 0 {
			fmt.Fprintf(&b, "  class %s %s\n", strings.Join(ids, ","), st.Class)
		}
	}
	return b.String()
}

// mermaidID maps a feature id to a mermaid node id. Raw ids are unsafe there
// (a leading digit, "-" read as part of an arrow, words like "end"), so valid
// ids get a prefix and "_" for "-", which no valid id contains; anything else
// is hex-encoded under another prefix, so distinct ids never collide.
func mermaidID(id string) string {
	if model.ValidFeatureID(id) {
		return "f_" + strings.ReplaceAll(id, "-", "_")
	}
	return "x_" + hex.EncodeToString([]byte(id))
}

// mermaidText escapes a label with mermaid's "#code;" entities, "#" itself
// first so that user text cannot spell an entity, and "<" so that it cannot
// spell HTML in an HTML label.
func mermaidText(s string, maxRunes int) string {
	s = truncate(diagramText(s), maxRunes)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '#', '"', '<', '>', '&', '`', '\\':
			b.WriteString("#" + strconv.Itoa(int(r)) + ";")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dotStyles is the Graphviz look of each status; it mirrors mermaidClassDefs.
var dotStyles = map[string]string{
	"ok":    `fillcolor="#d3f9d8", color="#2f9e44"`,
	"run":   `fillcolor="#d0ebff", color="#1c7ed6", penwidth=2`,
	"wait":  `fillcolor="#fff3bf", color="#f08c00", penwidth=2`,
	"fail":  `fillcolor="#ffe3e3", color="#e03131", penwidth=2`,
	"block": `fillcolor="#e9ecef", color="#495057", style="rounded,filled,dashed"`,
	"pend":  `fillcolor="#ffffff", color="#adb5bd"`,
	"int":   `fillcolor="#ffe3e3", color="#e03131", penwidth=2, style="rounded,filled,dashed"`,
}

// DiagramDOT draws the plan as a Graphviz digraph, top to bottom, with the
// features of each topological level on one rank so it matches the ascii
// drawing. Ids are always quoted, so any id is a valid node name.
func DiagramDOT(s *model.Session) string {
	var b strings.Builder
	b.WriteString("digraph plan {\n")
	if s == nil || s.Plan == nil || len(s.Plan.Features) == 0 {
		b.WriteString("  empty [label=\"no plan yet\", shape=plaintext];\n}\n")
		return b.String()
	}
	p := s.Plan
	fmt.Fprintf(&b, "  graph [rankdir=TB, labelloc=t, fontname=\"Helvetica\", label=%s];\n",
		dotQuote(diagramText(s.ID)+": "+ProgressText(p)))
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n")
	b.WriteString("  edge [color=\"#495057\", fontname=\"Helvetica\", fontsize=9];\n\n")
	for _, f := range p.Features {
		st := statusFor(s, p.Feature(f.ID))
		label := truncate(diagramText(f.ID), model.MaxFeatureIDLen) + "\n" + truncate(diagramText(f.Title), mermaidTitleMax) +
			"\n" + st.Tag + " " + st.Label + agentMark(&f)
		fmt.Fprintf(&b, "  %s [label=%s, %s];\n", dotQuote(f.ID), dotQuote(label), dotStyles[st.Class])
	}
	if levels := model.Levels(p.Features); len(levels) > 1 {
		b.WriteString("\n")
		for _, lvl := range levels {
			quoted := make([]string, len(lvl))
			for i, id := range lvl {
				quoted[i] = dotQuote(id)
			}
			fmt.Fprintf(&b, "  { rank=same; %s; }\n", strings.Join(quoted, "; "))
		}
	}
	first := true
	for _, f := range p.Features {
		for _, d := range f.DependsOn {
			if first {
				b.WriteString("\n")
				first = false
			}
			fmt.Fprintf(&b, "  %s -> %s;\n", dotQuote(d), dotQuote(f.ID))
		}
		for _, d := range f.BlockedBy {
			if first {
				b.WriteString("\n")
				first = false
			}
			fmt.Fprintf(&b, "  %s -> %s [style=dashed, label=\"blocked by\"];\n", dotQuote(d), dotQuote(f.ID))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote quotes s as a DOT string. A newline becomes the label line break
// "\n"; other backslashes are doubled so they cannot start a DOT escape.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range cleanText(s, true) {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
