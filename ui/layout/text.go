package layout

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/flowdeck/flowdeck/ui/styles"
)

// oneLine keeps s on one screen row: a command a flow runs (sh -c with a
// script) holds newlines, which would break every frame it is drawn in.
var oneLine = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "", "\t", " ")

// Flat takes zero-width joiners and emoji variation selectors out of s:
// terminals disagree on how wide a joined emoji sequence is, and a wrong
// guess moves every border after it. Apart, each emoji has the width every
// terminal gives it.
func Flat(s string) string {
	if !strings.ContainsAny(s, "\u200d\ufe0f") {
		return s
	}
	return flat.Replace(s)
}

var flat = strings.NewReplacer("\u200d", "", "\ufe0f", "")

// Fit makes s exactly w cells wide: cut with "…" when longer, padded with
// spaces when shorter. s may hold SGR sequences; newlines show as ⏎.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if strings.ContainsAny(s, "\n\r\t") {
		s = oneLine.Replace(s)
	}
	s = Flat(s)
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// Cut shortens plain text s to w cells with "…"; shorter text is returned
// as is (newlines as ⏎).
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if strings.ContainsAny(s, "\n\r\t") {
		s = oneLine.Replace(s)
	}
	s = Flat(s)
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Width is the display width of s (SGR sequences excluded).
func Width(s string) int { return ansi.StringWidth(Flat(s)) }

// PadLines returns exactly h lines of width w from lines (cut or blank-padded).
func PadLines(lines []string, w, h int) []string {
	out := make([]string, h)
	blank := strings.Repeat(" ", max(0, w))
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
		} else {
			out[i] = blank
		}
	}
	return out
}

const nbHyphen = "\u2011"

// Wrap breaks s into lines of at most w cells, at spaces where it can
// (ansi.Wrap); the lines after the first start with hang and are wrapped
// to fit with it.
func Wrap(s string, w int, hang string) []string {
	if w <= 0 || Width(s) <= w {
		return []string{s}
	}
	// ansi.Wrap also breaks after every hyphen; feature ids and flags
	// (e2e-tests, --dir) stay whole: hyphens go through as non-breaking
	// ones, of the same width, and come back after.
	if strings.Contains(s, "-") {
		out := Wrap(strings.ReplaceAll(s, "-", nbHyphen), w, hang)
		for i := range out {
			out[i] = strings.ReplaceAll(out[i], nbHyphen, "-")
		}
		return out
	}
	first, _, _ := strings.Cut(ansi.Wrap(s, w, ""), "\n")
	rest, ok := strings.CutPrefix(s, first)
	if !ok { // ansi.Wrap changed the first line's bytes: cut it by width
		first = ansi.Truncate(s, w, "")
		rest = s[len(first):]
	}
	out := []string{first}
	if rest = strings.TrimLeft(rest, " "); rest == "" {
		return out
	}
	for _, l := range strings.Split(ansi.Wrap(rest, max(1, w-Width(hang)), ""), "\n") {
		out = append(out, hang+l)
	}
	return out
}

// FitMessage is the first of variants (longest first) that fits in w×h
// wrapped at spaces with no word cut, as lines; when none does, the last
// variant cut to w on one line. For messages that must read whole at any
// size (the terminal is too small).
func FitMessage(w, h int, variants ...string) []string {
	if w <= 0 || h <= 0 || len(variants) == 0 {
		return nil
	}
	for _, v := range variants {
		fits := true
		for _, word := range strings.Fields(v) {
			fits = fits && Width(word) <= w
		}
		if !fits {
			continue
		}
		if lines := strings.Split(ansi.Wrap(v, w, ""), "\n"); len(lines) <= h {
			for i, l := range lines {
				lines[i] = strings.TrimRight(l, " ")
			}
			return lines
		}
	}
	return []string{ansi.Truncate(variants[len(variants)-1], w, "")}
}

// Position is a list's cursor for its frame, "feature 3 of 8": words, so
// that it does not read as progress next to the session bar's "2/8 done".
func Position(noun string, i, n int) string {
	return fmt.Sprintf(" %s %d of %d ", noun, i, n)
}

// WrapLines wraps lines at w cells (paths and hints run long), the
// continuations indented, keeping at most n lines. Below 11 cells lines
// are kept whole: there is no room to wrap into.
func WrapLines(lines []string, w, n int) []string {
	var out []string
	for _, l := range lines {
		if w <= 10 {
			out = append(out, l)
			continue
		}
		out = append(out, Wrap(l, w, "    ")...)
	}
	return out[:min(len(out), n)]
}

// NoteLines draws a note of lines in w cells: wrapped at w-1 (at most n
// rows), each row behind indent and exactly w wide. The first row is drawn in
// head, the rest in rest; no lines are one blank row.
func NoteLines(lines []string, head, rest styles.Style, indent string, w, n int) []string {
	if len(lines) == 0 {
		return []string{Fit("", w)}
	}
	var out []string
	for i, l := range WrapLines(lines, w-1, n) {
		p := head
		if i > 0 {
			p = rest
		}
		out = append(out, Fit(indent+p.Render(l), w))
	}
	return out
}
