package diffview

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Status is what happened to a file.
type Status uint8

const (
	Modified Status = iota
	Added
	Deleted
	Renamed
	Copied
)

// Letter is the one-letter code git uses for the status (M A D R C).
func (s Status) Letter() string {
	switch s {
	case Added:
		return "A"
	case Deleted:
		return "D"
	case Renamed:
		return "R"
	case Copied:
		return "C"
	}
	return "M"
}

func (s Status) String() string {
	switch s {
	case Added:
		return "added"
	case Deleted:
		return "deleted"
	case Renamed:
		return "renamed"
	case Copied:
		return "copied"
	}
	return "modified"
}

// Kind is what a line of a file's diff is.
type Kind uint8

const (
	Hunk      Kind = iota // an @@ -a,b +c,d @@ header
	Context               // unchanged
	Add                   // added
	Del                   // removed
	NoNewline             // "\ No newline at end of file"
)

// Line is one line of a file's diff. Its text stays in the buffer Parse was
// given (Diff.Text): a 20,000-line diff is one slice of these 20-byte values,
// not 20,000 strings.
type Line struct {
	Kind Kind
	// Old and New are 1-based line numbers in the old and the new file, 0
	// where the line has none. A removed line's New is where it was in the
	// new file (the number of the next new line); a hunk header's are the
	// hunk's starts.
	Old, New int32
	off, end uint32
}

// File is one file's part of a diff.
type File struct {
	// OldPath and NewPath are the paths as git wrote them, unquoted,
	// without the a/ and b/ prefixes, and unsanitised: "" on the side that
	// does not exist (an added file has no old path).
	OldPath, NewPath string
	Status           Status
	// Binary is set for a binary file: git shows no lines for it.
	Binary         bool
	Added, Removed int
	// Lines are the hunk headers and lines, in order.
	Lines []Line

	lo, hi int // Lines is Diff.lines[lo:hi], set when parsing ends
}

// Path is the file's path: the new one, or the old one of a deleted file.
func (f *File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Diff is a parsed unified diff.
type Diff struct {
	Files          []File
	Added, Removed int // over all files
	// Truncated is set when the input was longer than a Line can address
	// (4 GiB) and only its start was parsed.
	Truncated bool

	data  []byte
	lines []Line
}

// Text is a line's text without its +, - or space mark. It is as the diff
// holds it: foreign, unsanitised.
func (d *Diff) Text(l Line) string { return string(d.Bytes(l)) }

// Bytes is Text without the copy: it aliases the buffer Parse was given.
func (d *Diff) Bytes(l Line) []byte {
	if d == nil || int(l.end) > len(d.data) || l.off > l.end {
		return nil
	}
	return d.data[l.off:l.end]
}

// Parse reads git's unified diff output (git diff --no-color, git show, or
// a plain diff -u). It never fails: what it does not understand (combined
// diffs, commit headers, garbage) it skips. The returned Diff keeps data:
// the caller must not change it afterwards.
func Parse(data []byte) *Diff {
	d := &Diff{}
	if len(data) > math.MaxUint32 {
		data, d.Truncated = data[:math.MaxUint32], true
	}
	d.data = data
	d.lines = make([]Line, 0, bytes.Count(data, []byte{'\n'})+1)
	p := parser{d: d, cur: -1}
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end, next = len(data)-off, len(data)
		}
		p.line(off, off+end)
		off = next
	}
	p.finish()
	for i := range d.Files {
		f := &d.Files[i]
		f.Lines = d.lines[f.lo:f.hi:f.hi]
		d.Added += f.Added
		d.Removed += f.Removed
	}
	return d
}

type state uint8

const (
	outside state = iota // before any file, or after something unknown
	header               // in a file's extended header lines
	body                 // in a hunk
	binary               // in a GIT binary patch's data
)

type parser struct {
	d        *Diff
	off, end int // the line being read
	cur      int // the file being read, -1 before the first
	st       state
	oldN     int // lines the hunk still has on each side
	newN     int
	oldNo    int // the next line numbers
	newNo    int
	// plainOld is a "--- path" line met outside a file: a plain diff -u
	// starts its file with it, and the "+++ path" after confirms it.
	plainOld     string
	havePlainOld bool
}

func (p *parser) file() *File { return &p.d.Files[p.cur] }

// startFile ends the current file and begins another.
func (p *parser) startFile(oldPath, newPath string) {
	p.finish()
	p.d.Files = append(p.d.Files, File{OldPath: oldPath, NewPath: newPath, lo: len(p.d.lines)})
	p.cur = len(p.d.Files) - 1
	p.st = header
}

// finish settles the current file's extent and its paths by its status.
func (p *parser) finish() {
	if p.cur < 0 {
		return
	}
	f := p.file()
	f.hi = len(p.d.lines)
	switch f.Status {
	case Added:
		f.OldPath = ""
	case Deleted:
		f.NewPath = ""
	}
}

func (p *parser) line(off, end int) {
	p.off, p.end = off, end
	s := p.d.data[off:end]
	if p.st == body && p.bodyLine(s) {
		return
	}
	p.headerLine(s)
}

// bodyLine takes a line of a hunk; false ends the hunk and leaves the line
// to headerLine. Counts decide where a hunk ends, so a removed line that
// reads "--- a/x" stays a removed line.
func (p *parser) bodyLine(s []byte) bool {
	text := min(p.off+1, p.end) // after the mark
	if len(s) > 0 && s[0] == '\\' {
		p.add(NoNewline, 0, 0, text)
		return true
	}
	if p.oldN <= 0 && p.newN <= 0 {
		p.st = header
		return false
	}
	f := p.file()
	switch {
	case len(s) == 0 || s[0] == ' ': // some tools strip a context line's lone space
		p.add(Context, p.oldNo, p.newNo, text)
		p.oldNo, p.newNo = p.oldNo+1, p.newNo+1
		p.oldN, p.newN = p.oldN-1, p.newN-1
	case s[0] == '+':
		p.add(Add, 0, p.newNo, text)
		p.newNo, p.newN = p.newNo+1, p.newN-1
		f.Added++
	case s[0] == '-':
		p.add(Del, p.oldNo, p.newNo, text)
		p.oldNo, p.oldN = p.oldNo+1, p.oldN-1
		f.Removed++
	default: // a hunk shorter than its header said
		p.st = header
		return false
	}
	return true
}

// add appends a line whose text runs from off to the end of the line read.
func (p *parser) add(k Kind, old, new, off int) {
	p.d.lines = append(p.d.lines, Line{Kind: k, Old: clamp32(old), New: clamp32(new), off: uint32(off), end: uint32(p.end)})
}

func clamp32(n int) int32 { return int32(max(0, min(n, math.MaxInt32))) }

func (p *parser) headerLine(s []byte) {
	line := string(s)
	if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
		a, b := splitGitHeader(rest)
		p.startFile(a, b)
		p.havePlainOld = false
		return
	}
	if p.st == binary {
		return
	}
	if p.st == outside {
		// Only a plain diff's "--- a" "+++ b" pair starts a file here.
		if rest, ok := strings.CutPrefix(line, "--- "); ok {
			p.plainOld, p.havePlainOld = diffPath(rest, "a/"), true
			return
		}
		if rest, ok := strings.CutPrefix(line, "+++ "); ok && p.havePlainOld {
			p.startFile(p.plainOld, diffPath(rest, "b/"))
			p.setSides()
			return
		}
		p.havePlainOld = false
		return
	}
	f := p.file()
	switch {
	case strings.HasPrefix(line, "@@ "):
		p.startHunk(line)
	case strings.HasPrefix(line, "--- "):
		if len(p.d.lines) > f.lo { // a plain diff's next file, after this one's hunks
			p.finish()
			p.st = outside
			p.headerLine(s)
			return
		}
		f.OldPath = diffPath(line[4:], "a/")
	case strings.HasPrefix(line, "+++ "):
		f.NewPath = diffPath(line[4:], "b/")
		p.setSides()
	case strings.HasPrefix(line, "new file mode"):
		f.Status = Added
	case strings.HasPrefix(line, "deleted file mode"):
		f.Status = Deleted
	case strings.HasPrefix(line, "rename from "):
		f.OldPath, f.Status = gitPath(line[len("rename from "):]), Renamed
	case strings.HasPrefix(line, "rename to "):
		f.NewPath, f.Status = gitPath(line[len("rename to "):]), Renamed
	case strings.HasPrefix(line, "copy from "):
		f.OldPath, f.Status = gitPath(line[len("copy from "):]), Copied
	case strings.HasPrefix(line, "copy to "):
		f.NewPath, f.Status = gitPath(line[len("copy to "):]), Copied
	case strings.HasPrefix(line, "Binary files ") && strings.HasSuffix(line, " differ"):
		f.Binary = true
	case line == "GIT binary patch":
		f.Binary, p.st = true, binary
	}
}

// setSides reads an added or deleted file off the /dev/null side of its
// "--- " "+++ " pair (diffPath gives "" for /dev/null).
func (p *parser) setSides() {
	f := p.file()
	if f.Status != Modified {
		return
	}
	switch {
	case f.OldPath == "" && f.NewPath != "":
		f.Status = Added
	case f.NewPath == "" && f.OldPath != "":
		f.Status = Deleted
	}
}

// startHunk reads "@@ -a[,b] +c[,d] @@ section". A header it cannot read
// still shows, as a hunk of no lines.
func (p *parser) startHunk(line string) {
	h, ok := parseHunk(line)
	p.st = header
	if ok {
		p.st = body
	}
	p.add(Hunk, h.oldStart, h.newStart, p.off)
	p.oldN, p.newN = h.oldN, h.newN
	p.oldNo, p.newNo = h.oldStart, h.newStart
	// git writes a side with no lines as start 0 ("-0,0"): the next line
	// on that side would be line 1
	if h.oldN == 0 {
		p.oldNo++
	}
	if h.newN == 0 {
		p.newNo++
	}
}

type hunkHeader struct{ oldStart, oldN, newStart, newN int }

// parseHunk reads the ranges of "@@ -a[,b] +c[,d] @@". Numbers are capped
// (a hostile header cannot overflow the line numbers).
func parseHunk(line string) (h hunkHeader, ok bool) {
	rest, _ := strings.CutPrefix(line, "@@ -")
	ranges, _, found := strings.Cut(rest, " @@")
	if !found || len(rest) == len(line) {
		return h, false
	}
	old, new, found := strings.Cut(ranges, " +")
	if !found {
		return h, false
	}
	var ok1, ok2 bool
	h.oldStart, h.oldN, ok1 = parseRange(old)
	h.newStart, h.newN, ok2 = parseRange(new)
	return h, ok1 && ok2
}

// maxLineNo caps a hunk's numbers far below int32's reach.
const maxLineNo = 1 << 30

func parseRange(s string) (start, n int, ok bool) {
	a, b, hasN := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	n = 1
	if hasN {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, false
		}
	}
	return min(start, maxLineNo), min(n, maxLineNo), true
}

// splitGitHeader reads the two paths of "diff --git a/x b/y". Either may be
// quoted. Unquoted paths with spaces are ambiguous; the "---"/"+++" and
// "rename" lines that follow, when there are any, name the paths for sure.
func splitGitHeader(rest string) (a, b string) {
	if strings.HasPrefix(rest, `"`) {
		a, n, ok := unquote(rest)
		if !ok {
			return "", ""
		}
		b := strings.TrimPrefix(rest[n:], " ")
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(gitPath(b), "b/")
	}
	if strings.HasSuffix(rest, `"`) {
		for i := strings.Index(rest, ` "`); i >= 0; {
			if b, n, ok := unquote(rest[i+1:]); ok && i+1+n == len(rest) {
				return strings.TrimPrefix(rest[:i], "a/"), strings.TrimPrefix(b, "b/")
			}
			j := strings.Index(rest[i+1:], ` "`)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	// The same path twice (no rename): "a/P b/P".
	if n := len(rest) / 2; len(rest)%2 == 1 && rest[n] == ' ' {
		a, b := strings.TrimPrefix(rest[:n], "a/"), strings.TrimPrefix(rest[n+1:], "b/")
		if a == b {
			return a, b
		}
	}
	if i := strings.Index(rest, " b/"); i >= 0 {
		return strings.TrimPrefix(rest[:i], "a/"), rest[i+3:]
	}
	a, b, _ = strings.Cut(rest, " ")
	return a, b
}

// diffPath reads the path of a "--- " or "+++ " line: quoted, or up to a
// tab (git ends a name holding a space with one; diff -u puts the date
// after it), without its prefix; /dev/null is no path.
func diffPath(s, prefix string) string {
	if strings.HasPrefix(s, `"`) {
		s = gitPath(s)
	} else {
		s, _, _ = strings.Cut(s, "\t")
	}
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}

// gitPath is a path as git writes it in a header: quoted when it holds
// special characters, or as it is.
func gitPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		if v, _, ok := unquote(s); ok {
			return v
		}
	}
	return s
}

// unquote reads a C-style quoted string at the start of s, as git writes
// names with control characters, quotes, backslashes and (with
// core.quotePath) bytes above 0x7f: \a \b \t \n \v \f \r \" \\ and \ooo.
// n is how many bytes of s it took.
func unquote(s string) (v string, n int, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0, false
	}
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return string(b), i + 1, true
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, false
			}
			switch e := s[i]; e {
			case 'a':
				b = append(b, '\a')
			case 'b':
				b = append(b, '\b')
			case 't':
				b = append(b, '\t')
			case 'n':
				b = append(b, '\n')
			case 'v':
				b = append(b, '\v')
			case 'f':
				b = append(b, '\f')
			case 'r':
				b = append(b, '\r')
			case '0', '1', '2', '3':
				if i+2 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) {
					b = append(b, (e-'0')<<6|(s[i+1]-'0')<<3|(s[i+2]-'0'))
					i += 2
				} else {
					b = append(b, e)
				}
			default:
				b = append(b, e)
			}
		default:
			b = append(b, c)
		}
	}
	return "", 0, false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
