package patterns

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// matcher accumulates what a tool prints, line by line (ANSI-free), and
// turns it into a summary at the end. Built-in matchers are small Go state
// machines because a summary often needs counting across the stream
// ("--- FAIL: X" lines, one "ok pkg" line per package), which one regex
// over the tail cannot do.
type matcher interface {
	line(l []byte)
	// result returns the summary, or ok=false when the output was not
	// recognised (then the category decides).
	result(exitCode int, elapsed time.Duration) (out outcome, ok bool)
}

// detailer is implemented by matchers that know which lines of a failing
// run are worth showing; it may rewrite a line (go test -json output).
type detailer interface {
	detail(l []byte) (out []byte, act action)
}

// action says what a detailer does with a line.
type action int

const (
	drop    action = iota
	keep           // keep the line
	restart        // forget the lines kept so far and keep this one: the tool's failure report starts here
)

type outcome struct {
	summary string
	counts  map[string]int
	// noTests: the tool ran and reported that no test ran (none found,
	// all filtered out or skipped). Such a run proves nothing.
	noTests bool
}

// ranNone is the outcome of a run in which no test ran.
func ranNone(counts map[string]int, details ...string) outcome {
	return outcome{summary: joinNonEmpty(", ", append([]string{"no tests ran"}, details...)...), counts: counts, noTests: true}
}

// nameList keeps the names of failing tests, in order, without repeats.
// It stores a bounded number (the rest is only counted).
type nameList struct {
	names []string
	n     int
}

const (
	maxNamesKept  = 64
	maxNamesShown = 5
)

func (nl *nameList) add(s string) {
	if s == "" {
		return
	}
	for _, x := range nl.names {
		if x == s {
			return
		}
	}
	nl.n++
	if len(nl.names) < maxNamesKept {
		nl.names = append(nl.names, s)
	}
}

func (nl *nameList) remove(s string) {
	for i := len(nl.names) - 1; i >= 0; i-- {
		if nl.names[i] == s {
			nl.names = append(nl.names[:i], nl.names[i+1:]...)
			nl.n--
			return
		}
	}
}

func (nl *nameList) String() string {
	shown := nl.names
	if len(shown) > maxNamesShown {
		shown = shown[:maxNamesShown]
	}
	s := strings.Join(shown, ", ")
	if more := nl.n - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// item is one "N word" part of a summary.
type item struct {
	n      int
	word   string
	always bool // shown even when 0
}

// failLead is "2 failed", "2 failed, 1 error" or "1 error".
func failLead(failed, errors int) string {
	if errors == 0 {
		return fmt.Sprintf("%d failed", failed)
	}
	if failed == 0 {
		return plural(errors, "error")
	}
	return fmt.Sprintf("%d failed, %s", failed, plural(errors, "error"))
}

func joinItems(items ...item) string {
	var parts []string
	for _, it := range items {
		if it.always || it.n != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", it.n, it.word))
		}
	}
	return strings.Join(parts, ", ")
}

// plural returns "1 error" / "2 errors".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// failText renders "LEAD: name, name (REST)" with the parts that exist.
func failText(lead string, names *nameList, rest string) string {
	s := lead
	if names != nil && len(names.names) > 0 {
		s += ": " + names.String()
	}
	if rest != "" {
		s += " (" + rest + ")"
	}
	return s
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// FormatDuration renders a duration the way summaries show it: 4ms, 355ms,
// 3.2s, 48.1s, 2m5s.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

func setDuration(counts map[string]int, d time.Duration) {
	if d > 0 {
		counts["duration_ms"] = int(d.Round(time.Millisecond).Milliseconds())
	}
}

// parseDuration parses "0.35", "0.35s", "355ms", "1m 2s" style durations.
func parseDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(strings.ReplaceAll(s, " ", "")); err == nil {
		return d, true
	}
	if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64); err == nil {
		return time.Duration(f * float64(time.Second)), true
	}
	return 0, false
}

func itoa(n int) string { return strconv.Itoa(n) }

// atoi parses a non-negative decimal; -1 when b is not one.
func atoi(b []byte) int {
	if len(b) == 0 || len(b) > 12 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// countItems parses "2 failed, 1 skipped, 4 passed" (any separator in
// seps) into word -> n. ok is false when any part is not "N word".
func countItems(s []byte, seps string) (map[string]int, bool) {
	out := map[string]int{}
	parts := bytes.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
	for _, p := range parts {
		f := bytes.Fields(p)
		if len(f) != 2 {
			return nil, false
		}
		n := atoi(f[0])
		if n < 0 {
			return nil, false
		}
		out[string(f[1])] += n
	}
	return out, len(out) > 0
}

// cut returns the part of s after prefix, and whether s starts with it.
func cut(s []byte, prefix string) ([]byte, bool) {
	if len(s) < len(prefix) || string(s[:len(prefix)]) != prefix {
		return nil, false
	}
	return s[len(prefix):], true
}

func trimSpace(b []byte) []byte { return bytes.TrimSpace(b) }

// indent is the number of leading spaces.
func indent(b []byte) int {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// userMatcher runs a user pattern's success regex on every line; the last
// matching line wins and fills the summary template.
type userMatcher struct {
	re     *regexp.Regexp
	tmpl   string
	groups []string // the last match's submatches
	seen   bool
}

func (u *userMatcher) line(l []byte) {
	if u.re == nil || !u.re.Match(l) {
		return
	}
	m := u.re.FindSubmatch(l)
	u.groups = u.groups[:0]
	for _, g := range m {
		u.groups = append(u.groups, string(g))
	}
	u.seen = true
}

func (u *userMatcher) result(int, time.Duration) (outcome, bool) {
	if !u.seen {
		return outcome{}, false
	}
	counts := map[string]int{}
	for i, name := range u.re.SubexpNames() {
		if name == "" || i >= len(u.groups) {
			continue
		}
		if n, err := strconv.Atoi(u.groups[i]); err == nil {
			counts[name] = n
		}
	}
	s := expandSummary(u.tmpl, func(name string) string {
		if i := u.re.SubexpIndex(name); i >= 0 && i < len(u.groups) {
			return u.groups[i]
		}
		return ""
	})
	return outcome{summary: s, counts: counts}, true
}

var placeholder = lazyre.New(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func expandSummary(tmpl string, val func(string) string) string {
	return placeholder().ReplaceAllStringFunc(tmpl, func(m string) string {
		return val(m[1 : len(m)-1])
	})
}

// toolDur is a duration as the tool printed it: a summary carries the tool's
// own number ("3.45s" stays 3.45s), never ours rounded again.
type toolDur struct {
	d      time.Duration
	text   string // as printed, spaces removed; a bare number gets "s"
	n      int    // how many reports were added up
	places int    // the most decimals among them, all in seconds; -1 otherwise
}

// parseToolDur reads a duration the tool printed.
func parseToolDur(s string) (toolDur, bool) {
	d, ok := parseDuration(s)
	if !ok || d <= 0 {
		return toolDur{}, false
	}
	text := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if _, err := strconv.ParseFloat(text, 64); err == nil {
		text += "s"
	}
	places := -1
	if num, ok := strings.CutSuffix(text, "s"); ok {
		if _, err := strconv.ParseFloat(num, 64); err == nil {
			_, frac, _ := strings.Cut(num, ".")
			places = len(frac)
		}
	}
	return toolDur{d: d, text: text, n: 1, places: places}, true
}

// add sums the durations of several reports (one per test binary).
func (t *toolDur) add(o toolDur) {
	if t.n == 0 {
		*t = o
		return
	}
	t.d += o.d
	t.n += o.n
	if t.places < 0 || o.places < 0 {
		t.places = -1
	} else {
		t.places = max(t.places, o.places)
	}
}

// show is the duration of a summary and its text: the tool's own words for
// one report, a sum in the precision it was printed with, or, when the tool
// reported nothing, elapsed (flowdeck's clock).
func (t toolDur) show(elapsed time.Duration) (time.Duration, string) {
	switch {
	case t.n == 1:
		return t.d, t.text
	case t.n > 1 && t.places >= 0:
		return t.d, fmt.Sprintf("%.*fs", t.places, t.d.Seconds())
	case t.n > 1:
		return t.d, FormatDuration(t.d)
	}
	return elapsed, FormatDuration(elapsed)
}
