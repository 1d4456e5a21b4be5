package diffview

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/x/ansi"

	"github.com/flowdeck/flowdeck/termtext"
	"github.com/flowdeck/flowdeck/ui/layout"
	"github.com/flowdeck/flowdeck/ui/styles"
)

const (
	// tabWidth is where tabs stop: Go code indents with tabs, and 8 would
	// spend a narrow pane on indentation.
	tabWidth = 4
	// maxLineBytes is how much of one line is drawn (horizontal scrolling
	// included): a minified or hostile megabyte line costs no more than this.
	maxLineBytes = 4096
	// maxHighlightBytes is how much of one line is highlighted; the rest is
	// drawn plain.
	maxHighlightBytes = 512
	// frameBudget is how many bytes of code one View highlights. chroma's
	// regexp lexers take ~1 µs a byte here (~65 µs for a line of Go), so a
	// page of new lines would cost ~3 ms; past the budget lines are drawn
	// plain until a later View or Highlight call gets to them.
	frameBudget = 1024
	// cacheLines bounds the drawn lines kept (two generations of it).
	cacheLines = 2048
	// frameTime stops lexing in a frame that has taken this long: a
	// pathological line can make a regexp backtrack (chroma caps each match
	// at 250 ms, not a line). The byte budget keeps ordinary frames near
	// 1 ms; this only bounds the worst.
	frameTime = 8 * time.Millisecond
)

// class is a token's kind, chroma's categories reduced to what we colour.
type class uint8

const (
	plain class = iota
	keyword
	str
	comment
	number
	typ
	nClasses
)

func classOf(t chroma.TokenType) class {
	switch {
	case t == chroma.KeywordType, t == chroma.NameBuiltin, t == chroma.NameClass:
		return typ
	case t.InCategory(chroma.Keyword), t == chroma.CommentPreproc:
		return keyword
	case t.InCategory(chroma.Comment):
		return comment
	case t.InSubCategory(chroma.LiteralString):
		return str
	case t.InSubCategory(chroma.LiteralNumber):
		return number
	}
	return plain
}

// drawn is a line's code, sanitised, tab-expanded and painted, before it is
// cut to the screen: the cut changes with the width and the horizontal
// scroll, this does not.
type drawn struct {
	s  string
	w  int  // cells
	hl bool // highlighted (or nothing to highlight)
}

// lineCache keeps drawn lines by their index in the diff: two generations,
// the older dropped when the newer fills, so it stays bounded while what is
// on screen (looked up every frame) stays in it.
type lineCache struct{ cur, old map[int]drawn }

func (c *lineCache) get(k int) (drawn, bool) {
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	if v, ok := c.old[k]; ok {
		c.put(k, v)
		return v, true
	}
	return drawn{}, false
}

func (c *lineCache) put(k int, v drawn) {
	if c.cur == nil || len(c.cur) >= cacheLines {
		c.old, c.cur = c.cur, make(map[int]drawn, cacheLines)
	}
	c.cur[k] = v
}

func (c *lineCache) reset() { c.cur, c.old = nil, nil }

// highlighter draws the code of diff lines, lazily: only lines that are
// shown, each once.
type highlighter struct {
	frameTime time.Duration // tests make it long, so that nothing depends on timing
	cache     lineCache
	lexers    []chroma.Lexer // per file, looked up on first use
	looked    []bool
	find      *lexerFinder // made on first use
	// tok are the token styles on each kind of line (context, added,
	// removed): the line's tint under the token's colour.
	tok   [3][nClasses]styles.Style
	color bool
}

func (h *highlighter) setStyles(th *styles.Styles) {
	bases := [3]styles.Style{{}, th.DiffAddLine, th.DiffDelLine}
	for k, base := range bases {
		h.tok[k] = [nClasses]styles.Style{
			plain: base, keyword: th.SynKeyword.On(base), str: th.SynString.On(base),
			comment: th.SynComment.On(base), number: th.SynNumber.On(base), typ: th.SynType.On(base),
		}
	}
	h.color = th.Color
	h.cache.reset()
}

func (h *highlighter) setDiff(nFiles int) {
	h.lexers, h.looked = make([]chroma.Lexer, nFiles), make([]bool, nFiles)
	h.cache.reset()
}

func (h *highlighter) lexer(f int, path string) chroma.Lexer {
	if !h.looked[f] {
		h.looked[f] = true
		if h.color {
			if h.find == nil {
				h.find = newLexerFinder()
			}
			h.lexers[f] = h.find.match(path)
		}
	}
	return h.lexers[f]
}

func kindIndex(k Kind) int {
	switch k {
	case Add:
		return 1
	case Del:
		return 2
	}
	return 0
}

// budget is what one frame may spend on lexing.
type budget struct {
	bytes    int
	deadline time.Time
}

func (h *highlighter) budget() *budget {
	return &budget{bytes: frameBudget, deadline: time.Now().Add(h.frameTime)}
}

func (b *budget) spent() bool { return b.bytes <= 0 || !time.Now().Before(b.deadline) }

// lexerFinder is lexers.Match remembered. Match tries every glob of every
// lexer, and each with a dozen backup suffixes (~1.6 ms a name here); a
// page of a diff of small files meets a few names. Most globs are "*.ext":
// for a name that none of the others could match, what matches depends
// only on its last two extensions (".go", or ".go" and ".orig" for
// "x.go.orig", or "x.go~"), so the answer is kept under those.
type lexerFinder struct {
	special []string // the globs that are not "*.ext"
	memo    map[string]chroma.Lexer
}

func newLexerFinder() *lexerFinder {
	f := &lexerFinder{memo: map[string]chroma.Lexer{}}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		c := l.Config()
		for _, globs := range [][]string{c.Filenames, c.AliasFilenames} {
			for _, g := range globs {
				if !simpleGlob(g) {
					f.special = append(f.special, g)
				}
			}
		}
	}
	return f
}

// simpleGlob reports whether g is "*." and letters, digits, _ + or -.
func simpleGlob(g string) bool {
	ext, ok := strings.CutPrefix(g, "*.")
	return ok && ext != "" && !strings.ContainsFunc(ext, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '+' || r == '-')
	})
}

func (f *lexerFinder) match(path string) chroma.Lexer {
	base := filepath.Base(path)
	e1 := filepath.Ext(base)
	e2 := filepath.Ext(base[:len(base)-len(e1)])
	key := e2 + e1
	if e1 == "" || f.isSpecial(base, e1) {
		key = "/" + base // a name of its own ("/" is in no base name)
	}
	if l, ok := f.memo[key]; ok {
		return l
	}
	if len(f.memo) >= 4096 {
		clear(f.memo)
	}
	l := lexers.Match(base)
	f.memo[key] = l
	return l
}

// isSpecial reports whether a glob other than "*.ext" could match base, as
// it is or with a backup suffix ("~" or its last extension) taken off.
func (f *lexerFinder) isSpecial(base, ext string) bool {
	for _, g := range f.special {
		for _, name := range [...]string{base, strings.TrimSuffix(base, "~"), base[:len(base)-len(ext)]} {
			if ok, _ := filepath.Match(g, name); ok {
				return true
			}
		}
	}
	return false
}

// line returns line i (of file f) drawn, highlighting it while the budget
// lasts; past it the line is drawn plain and marked for a later call.
func (h *highlighter) line(d *Diff, f, i int, bud *budget) drawn {
	if v, ok := h.cache.get(i); ok && (v.hl || bud.spent()) {
		return v
	}
	l := d.lines[i]
	text := cleanCode(d.Bytes(l))
	styles := &h.tok[kindIndex(l.Kind)]
	v := drawn{hl: true}
	lx := h.lexer(f, d.Files[f].Path())
	switch {
	case lx == nil || text == "":
		v.s = styles[plain].Render(text)
	case bud.spent():
		v.s, v.hl = styles[plain].Render(text), false
	default:
		n := min(len(text), maxHighlightBytes)
		bud.bytes -= n
		// a line that runs out of time stays partly plain: lexing it
		// again would cost as much
		v.s = paint(lx, text[:n], styles, bud.deadline) + styles[plain].Render(text[n:])
	}
	// measured painted: a token's SGR inside a cluster (a lexer may split
	// a letter from its mark) changes how wide the width function finds it
	v.w = ansi.StringWidth(v.s)
	h.cache.put(i, v)
	return v
}

// paint tokenises text and paints each run of tokens of one class in its
// style. A lexer's error, and what is left at the deadline, are drawn
// plain.
func paint(lx chroma.Lexer, text string, st *[nClasses]styles.Style, deadline time.Time) string {
	it, err := lx.Tokenise(nil, text) // EnsureLF: line comments need their newline
	if err != nil {
		return st[plain].Render(text)
	}
	var b strings.Builder
	b.Grow(len(text) * 2)
	run, cls, done := 0, plain, 0
	flush := func() {
		b.WriteString(st[cls].Render(text[done : done+run]))
		done += run
		run = 0
	}
	for t := it(); t != chroma.EOF && time.Now().Before(deadline); t = it() {
		n := min(len(t.Value), len(text)-done-run) // drop the newline EnsureLF added
		if n <= 0 {
			continue
		}
		if c := classOf(t.Type); c != cls {
			flush()
			cls = c
		}
		run += n
	}
	flush()
	if done < len(text) { // out of time, or a lexer that gave back less than it got
		b.WriteString(st[plain].Render(text[done:]))
	}
	return b.String()
}

// cleanCode makes a line of foreign code safe and one row: escape
// sequences and controls go (an attack shows as what it was), tabs become
// spaces to the next stop, and it is cut at maxLineBytes.
func cleanCode(raw []byte) string {
	if len(raw) > maxLineBytes {
		raw = raw[:maxLineBytes]
	}
	s := termtext.With(string(raw), termtext.Options{Visible: true})
	if strings.ContainsAny(s, "\t\n\u2028\u2029") {
		s = expandTabs(s)
	}
	return settle(layout.Flat(s))
}

// settle keeps a field as wide next to other text as it is alone, so rows
// add up: a spacing mark that starts it would join the character before it
// (the row's + or gutter) into one cluster, and a prepended mark (U+0600…)
// that ends it would join the padding after it. The first gets a dotted
// circle to sit on, as fonts show a lone mark; the second is shown by its
// code point, as termtext shows what it will not draw.
func settle(s string) string {
	if s == "" {
		return s
	}
	if s[0] >= utf8.RuneSelf {
		if r, _ := utf8.DecodeRuneInString(s); joinsBefore(r) {
			s = "◌" + s
		}
	}
	if s[len(s)-1] >= utf8.RuneSelf {
		if r, n := utf8.DecodeLastRuneInString(s); joinsAfter(r) {
			s = s[:len(s)-n] + fmt.Sprintf(`\u%04x`, r)
		}
	}
	return s
}

// joinsBefore and joinsAfter ask the width function itself, so they follow
// its grapheme tables.
func joinsBefore(r rune) bool {
	c := string(r)
	return ansi.StringWidth("+"+c) != 1+ansi.StringWidth(c)
}

func joinsAfter(r rune) bool {
	c := string(r)
	return ansi.StringWidth(c+" ") != ansi.StringWidth(c)+1
}

// expandTabs turns tabs into spaces to the next tab stop, counting cells,
// and the newlines and line separators a sanitised line may still hold into
// spaces.
func expandTabs(s string) string {
	var b strings.Builder
	col := 0
	for {
		i := strings.IndexAny(s, "\t\n\u2028\u2029")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		col += ansi.StringWidth(s[:i])
		if s[i] == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(spaces[:n])
			col += n
			s = s[i+1:]
			continue
		}
		b.WriteByte(' ')
		col++
		if s[i] == '\n' {
			s = s[i+1:]
		} else {
			s = s[i+3:] // U+2028/9 are three bytes
		}
	}
}
