package patterns

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Class is the outcome of classifying a run's output.
type Class string

// Classes, as in oo.
const (
	Success     Class = "success"     // exit 0, a pattern summarised it in one line
	Failure     Class = "failure"     // exit != 0; Detail holds the filtered output
	Passthrough Class = "passthrough" // small output, or a content command: Detail is the output
	Quiet       Class = "quiet"       // a status command succeeded: nothing worth showing
	Indexed     Class = "indexed"     // large output: stored and indexed for recall
	// NoTests: a test command that ran no test (none found, all filtered
	// out or skipped). Whatever its exit status, it proves nothing.
	NoTests Class = "no_tests"
)

// Category says what a command's output is for; it decides the class of a
// large successful output that no pattern summarised.
type Category string

// Categories.
const (
	Status  Category = "status"  // the exit status is the point (git push, mkdir): quiet
	Content Category = "content" // the output is the point (cat, git diff): passthrough
	Data    Category = "data"    // listings to search in (ls, git log, rg): indexed
	Unknown Category = "unknown" // anything else: indexed when large
)

// DefaultSmallOutput is the size up to which a successful output is
// passed through whole.
const DefaultSmallOutput = 4096

// Result is the classification of one run.
type Result struct {
	Class    Class
	Category Category
	Pattern  string // name of the pattern that matched the command, "" if none
	Source   string // "builtin", or the path of the user file that defined the pattern
	// Summary is one line: "142 passed, 0 failed, 12 packages, 3.2s"; for a
	// failure it names the failing tests when the pattern knows them. It
	// carries no status glyph (see Headline).
	Summary string
	// Detail is what to show below the headline: for a failure the output
	// through the pattern's failure filter (or smart truncation); for a
	// passthrough the output itself. Bounded by MaxDetailLines and
	// MaxDetailBytes, ANSI-free and redacted.
	Detail string
	// Counts holds the numbers behind Summary, by name: passed, failed,
	// skipped, todo, packages, suites, files, errors, warnings, issues,
	// duration_ms, ... Only numbers the tool actually reported are present.
	Counts map[string]int
	Bytes  int64 // raw bytes written, escape sequences included
	Lines  int64 // lines after stripping escape sequences
}

// Headline renders the result as the one line oo prints after a run:
// "✓ go test (142 passed, ...)", "● cmd (2.3 MiB indexed, 41000 lines)",
// and for a failure, whose summary has parentheses of its own,
// "✗ go test — 2 failed: TestA, TestB (140 passed)". cmd names the
// command: usually the pattern name, else the command line.
func (r Result) Headline(cmd string) string {
	switch {
	case r.Class == NoTests:
		return "⚠ " + cmd + ": " + r.Summary
	case r.Class == Failure && r.Summary != "":
		return "✗ " + cmd + " — " + r.Summary
	case r.Class == Failure:
		return "✗ " + cmd
	}
	glyph := "✓"
	if r.Class == Indexed {
		glyph = "●"
	}
	if r.Summary == "" {
		return glyph + " " + cmd
	}
	return glyph + " " + cmd + " (" + r.Summary + ")"
}

// Options tune a Classifier.
type Options struct {
	// SmallOutput is the largest successful output, in bytes after
	// stripping escape sequences, that is passed through whole. 0 means
	// DefaultSmallOutput; a negative value turns the rule off.
	SmallOutput int
	// Redactor supplies the redaction rules applied to Summary and Detail.
	// It is cloned, so one Redactor may serve many classifiers. nil means
	// the built-in rules only.
	Redactor *Redactor
}

// ErrFinished is returned by Write after Finish.
var ErrFinished = errors.New("patterns: write after Finish")

// Classifier classifies one run's output as it streams. Write it the raw
// bytes as they arrive (any chunking), then call Finish once. Memory stays
// bounded whatever the output size. Not safe for concurrent use.
type Classifier struct {
	pat      *pattern
	m        matcher
	det      detailer
	category Category
	small    int
	rules    *ruleSet

	sp       splitter
	key      keyBlock
	raw      int64
	stripped int64
	lines    int64
	smallBuf []byte
	all      *collector   // smart truncation of everything
	fail     *filterState // the pattern's failure filter
	detc     *collector   // a builtin's filtered failure lines
	done     bool
	result   Result
}

// maxLineFor bounds one line kept in memory: enough for every matcher and
// for a whole small output, never the 50 MB of a runaway line.
func maxLineFor(small int) int {
	if small+1 > 16<<10 {
		return small + 1
	}
	return 16 << 10
}

func newClassifier(s *Set, argv []string, opts Options) *Classifier {
	if opts.SmallOutput == 0 {
		opts.SmallOutput = DefaultSmallOutput
	} else if opts.SmallOutput < 0 {
		opts.SmallOutput = -1
	}
	line, words := commandLine(argv)
	c := &Classifier{small: opts.SmallOutput, category: categoryOf(words), all: newSmart()}
	if opts.Redactor != nil {
		c.rules = opts.Redactor.rules
	}
	if p := s.match(line); p != nil {
		c.pat = p
		if p.category != "" {
			c.category = p.category
		}
		c.m = p.newMatcher(s)
		if p.filter != nil {
			c.fail = newFilterState(*p.filter)
		} else if d, ok := c.m.(detailer); ok {
			c.det = d
			c.detc = newSmart()
		}
	}
	c.sp = splitter{maxLine: maxLineFor(c.small), emit: c.line}
	return c
}

// Write consumes raw output. It never fails before Finish.
func (c *Classifier) Write(p []byte) (int, error) {
	if c.done {
		return 0, ErrFinished
	}
	c.raw += int64(len(p))
	c.sp.write(p)
	return len(p), nil
}

func (c *Classifier) line(l []byte, dropped int64) {
	c.lines++
	c.stripped += int64(len(l)) + dropped + 1
	l = c.key.apply(l)
	if c.stripped <= int64(c.small)+1 {
		c.smallBuf = append(c.smallBuf, l...)
		c.smallBuf = append(c.smallBuf, '\n')
	} else if c.smallBuf != nil {
		c.smallBuf = nil // too big to pass through: let it go
	}
	if c.m != nil {
		c.m.line(l)
	}
	c.all.add(l, dropped)
	if c.fail != nil {
		c.fail.line(l, dropped)
	} else if c.det != nil {
		switch d, act := c.det.detail(l); act {
		case restart:
			c.detc.reset()
			c.detc.add(d, dropped)
		case keep:
			// Runs of blank lines (live redraws leave many) count as one.
			if len(d) == 0 && c.detc.lastBlank() {
				break
			}
			c.detc.add(d, dropped)
		}
	}
}

// Finish ends the stream and classifies it. Calling it again returns the
// same result.
func (c *Classifier) Finish(exitCode int, elapsed time.Duration) Result {
	if c.done {
		return c.result
	}
	c.done = true
	unterminated := c.sp.partial
	c.sp.flush()
	if unterminated {
		c.stripped-- // no newline was written after the last line
	}
	red := c.rules.stateless
	r := Result{Category: c.category, Bytes: c.raw, Lines: c.lines}
	var out outcome
	ok := false
	if c.pat != nil {
		r.Pattern, r.Source = c.pat.name, c.pat.source
		out, ok = c.m.result(exitCode, elapsed)
	}
	if ok {
		r.Summary, r.Counts = out.summary, out.counts
	}
	small := c.stripped <= int64(c.small)
	switch {
	case ok && out.noTests:
		// Show what the tool said, so the person sees why nothing ran.
		r.Class = NoTests
		if small {
			r.Detail = c.smallText(red, unterminated)
		} else {
			r.Detail = c.all.render(red)
		}
	case exitCode != 0:
		r.Class = Failure
		r.Detail = c.failureDetail(red)
		if !ok {
			r.Summary = fmt.Sprintf("exit status %d", exitCode)
		}
	case small:
		r.Class = Passthrough
		r.Detail = c.smallText(red, unterminated)
	case ok:
		r.Class = Success
	default:
		switch c.category {
		case Status:
			r.Class = Quiet
		case Content:
			r.Class = Passthrough
			r.Detail = c.all.render(red)
		default:
			r.Class = Indexed
			r.Summary = fmt.Sprintf("%s indexed, %d lines", HumanBytes(c.raw), c.lines)
		}
	}
	r.Summary = string(red([]byte(r.Summary)))
	c.result = r
	return r
}

func (c *Classifier) failureDetail(red func([]byte) []byte) string {
	if c.fail != nil && c.fail.keep.total > 0 {
		return c.fail.keep.render(red)
	}
	if c.detc != nil && c.detc.total > 0 {
		return c.detc.render(red)
	}
	return c.all.render(red)
}

func (c *Classifier) smallText(red func([]byte) []byte, unterminated bool) string {
	b := c.smallBuf
	if unterminated && len(b) > 0 {
		b = b[:len(b)-1]
	}
	var sb strings.Builder
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			sb.Write(red(b))
			break
		}
		sb.Write(red(b[:i]))
		sb.WriteByte('\n')
		b = b[i+1:]
	}
	return sb.String()
}

// HumanBytes formats a size: 812 B, 4.0 KiB, 2.3 MiB, 1.1 GiB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
