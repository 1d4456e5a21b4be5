package interp

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// quoting contexts
const (
	ctxUnquoted  = iota // a word, inside $( ) or ` `
	ctxDouble           // "..."
	ctxSingle           // '...'
	ctxANSI             // $'...'
	ctxHeredoc          // an unquoted heredoc body
	ctxRaw              // a quoted heredoc body
	ctxArith            // evaluated as arithmetic
	ctxName             // a variable name ([[ -v ]])
	ctxParamWord        // the word of ${x:-word} (and :=, :?, :+)
	ctxRefuse           // a heredoc delimiter, ${x#pattern}, ${x/a/b}
)

// roots mark fields whose whole subtree has one context.
const (
	rootArith = iota + 1
	rootName
	rootParamWord
	rootRefuse
)

type edit struct {
	off, n int
	text   string
}

type shellWalker struct {
	src     string
	vars    map[string]any
	escaped map[int]bool
	stack   []syntax.Node
	roots   map[syntax.Node]int
	hdocs   map[*syntax.Word]*syntax.Redirect
	edits   []edit
	err     error
	posix   bool // the POSIX reading: sh may be dash
	// intNames are names bash evaluates as arithmetic (declared -i, or
	// read by arithmetic) anywhere in the script: assigning to one is
	// arithmetic too.
	intNames map[string]bool
}

// integerNames finds the names bash evaluates as arithmetic: those any
// declare -i declares, and every name arithmetic mentions.
func integerNames(f *syntax.File) map[string]bool {
	names := map[string]bool{}
	collect := func(n syntax.Node) {
		if n == nil || isNilNode(n) {
			return
		}
		syntax.Walk(n, func(m syntax.Node) bool {
			switch x := m.(type) {
			case *syntax.Lit:
				for _, id := range identToken().FindAllString(x.Value, -1) {
					names[id] = true
				}
			case *syntax.CmdSubst:
				return false // its own commands, not this arithmetic
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DeclClause:
			if declaresInteger(x) {
				for _, a := range x.Args {
					if a.Name != nil && !strings.HasPrefix(a.Name.Value, "-") {
						names[a.Name.Value] = true
					}
				}
			}
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			collect(x)
		case *syntax.Assign:
			collect(x.Index)
		case *syntax.ParamExp:
			collect(x.Index)
			if x.Slice != nil {
				collect(x.Slice.Offset)
				collect(x.Slice.Length)
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				collect(x.X)
				collect(x.Y)
			}
		}
		return true
	})
	return names
}

var identToken = lazyre.New(`[A-Za-z_][A-Za-z0-9_]*`)

func (w *shellWalker) visit(n syntax.Node) bool {
	if n == nil {
		w.stack = w.stack[:len(w.stack)-1]
		return true
	}
	if w.err != nil {
		w.stack = append(w.stack, n)
		return false
	}
	w.markRoots(n)
	switch x := n.(type) {
	case *syntax.ParamExp:
		if x.Short {
			w.place(int(x.Pos().Offset()), -1)
		}
	case *syntax.SglQuoted:
		kind, base := ctxSingle, int(x.Pos().Offset())+1
		if x.Dollar {
			kind, base = ctxANSI, base+1
		}
		w.scan(x.Value, base, kind)
	case *syntax.Lit:
		if p, ok := w.parent().(*syntax.Word); ok && w.hdocs[p] != nil && quotedDelim(w.hdocs[p].Word) {
			w.scan(x.Value, int(x.Pos().Offset()), ctxRaw)
		}
	}
	w.stack = append(w.stack, n)
	return true
}

func (w *shellWalker) parent() syntax.Node {
	if len(w.stack) == 0 {
		return nil
	}
	return w.stack[len(w.stack)-1]
}

// markRoots records the fields of n that the shell reads as arithmetic,
// as a name, or as a parameter expansion's word.
func (w *shellWalker) markRoots(n syntax.Node) {
	mark := func(node syntax.Node, kind int) {
		if node != nil && !isNilNode(node) {
			w.roots[node] = kind
		}
	}
	switch x := n.(type) {
	case *syntax.Assign:
		mark(x.Index, rootArith)
		if x.Name != nil && w.intNames[x.Name.Value] {
			// bash evaluates what lands in a name declared -i, or in a name
			// that arithmetic reads (its value is evaluated recursively:
			// n='a[$(cmd)]'; $(( n )) runs cmd).
			mark(x.Value, rootArith)
		}
	case *syntax.ParamExp:
		mark(x.Index, rootArith)
		if x.Slice != nil {
			mark(x.Slice.Offset, rootArith)
			mark(x.Slice.Length, rootArith)
		}
		if x.Exp != nil {
			if x.Exp.Op >= syntax.AlternateUnset && x.Exp.Op <= syntax.AssignUnsetOrNull {
				mark(x.Exp.Word, rootParamWord)
			} else {
				mark(x.Exp.Word, rootRefuse) // a pattern: quoting rules differ by shell
			}
		}
		if x.Repl != nil {
			mark(x.Repl.Orig, rootRefuse)
			mark(x.Repl.With, rootRefuse)
		}
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			mark(x.X, rootArith)
			mark(x.Y, rootArith)
		}
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			mark(x.X, rootName)
		}
	case *syntax.DeclClause:
		if declaresInteger(x) {
			for _, a := range x.Args {
				mark(a.Value, rootArith)
			}
		}
	case *syntax.Redirect:
		if x.Hdoc != nil {
			w.hdocs[x.Hdoc] = x
			mark(x.Word, rootRefuse)
		}
	}
}

func isNilNode(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.Word:
		return x == nil
	}
	return false
}

// declaresInteger: declare/local/typeset with a flag word holding i.
func declaresInteger(d *syntax.DeclClause) bool {
	for _, a := range d.Args {
		if a.Naked && a.Value != nil {
			if l := a.Value.Lit(); strings.HasPrefix(l, "-") && strings.Contains(l, "i") {
				return true
			}
		}
		if a.Naked && a.Name != nil && strings.HasPrefix(a.Name.Value, "-") && strings.Contains(a.Name.Value, "i") {
			return true
		}
	}
	return false
}

// quotedDelim: <<'EOF', <<"EOF", <<\EOF: the body is not expanded.
func quotedDelim(w *syntax.Word) bool {
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.Contains(l.Value, `\`) {
			return true
		}
	}
	return false
}

// scan places every flow variable written inside literal text (a quoted
// string or a quoted heredoc body) that starts at offset base.
func (w *shellWalker) scan(text string, base, kind int) {
	for i := 0; i < len(text) && w.err == nil; i++ {
		if text[i] == '$' {
			if n := w.place(base+i, kind); n > 0 {
				i += n - 1
			}
		}
	}
}

// place replaces the flow variable at off (if it is one) with its value
// quoted for its context; kind < 0 means "find it from the ancestors".
// It returns the bytes the reference spans.
func (w *shellWalker) place(off, kind int) int {
	if w.escaped[off] || off >= len(w.src) || w.src[off] != '$' {
		return 0
	}
	v, n, ok := ref(w.src, off, w.vars)
	if !ok {
		return 0
	}
	c := w.context()
	c.dash = w.posix
	c.linePrefix = w.src[strings.LastIndexByte(w.src[:off], '\n')+1 : off]
	before := strings.TrimRight(w.src[:off], "\t")
	c.lineStart = before == "" || strings.HasSuffix(before, "\n")
	switch {
	case kind == ctxSingle || kind == ctxANSI:
		switch c.kind {
		case ctxUnquoted:
			c.kind = kind
		case ctxArith, ctxName, ctxRefuse:
			// stricter than the quotes: arithmetic and names are evaluated
			// quoted or not, a delimiter is never a place for a value
		default:
			c.kind = ctxRefuse // shells disagree on whether ' quotes here
		}
	case kind >= 0:
		c.kind = kind
	}
	text, err := c.quote(shellString(v))
	if err != nil {
		w.err = fmt.Errorf("line %d of the block: %s: %v", lineAt(w.src, off), w.src[off:off+n], err)
		return n
	}
	w.edits = append(w.edits, edit{off: off, n: n, text: text})
	return n
}

func lineAt(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

// where is everything about a value's place that decides its quoting.
type where struct {
	kind          int
	backticks     int                // enclosing `...` levels
	hdocs         []*syntax.Redirect // enclosing heredoc bodies, any level
	lineStart     bool               // the value starts a line (after tabs)
	paramInDouble bool               // the ${x:-word} holding the value is inside "..."
	inSubst       bool               // inside $( ) or ` `, at any depth
	dash          bool               // the script may run in dash
	linePrefix    string             // the script's text before the value on its line
}

// context reads the ancestors from the innermost outwards. Up to the first
// command substitution, the nearest of "...", a parameter word or a heredoc
// decides, and arithmetic anywhere decides over all of them.
func (w *shellWalker) context() where {
	var c where
	kind, decided, arith := ctxUnquoted, false, false
	bounded := false
	for i := len(w.stack) - 1; i >= 0; i-- {
		n := w.stack[i]
		if word, ok := n.(*syntax.Word); ok && w.hdocs[word] != nil {
			c.hdocs = append(c.hdocs, w.hdocs[word])
			if !bounded && !decided {
				kind, decided = ctxHeredoc, true
			}
		}
		if cs, ok := n.(*syntax.CmdSubst); ok {
			c.inSubst = true
			if cs.Backquotes {
				c.backticks++
			}
		}
		if bounded {
			continue
		}
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			bounded = true
			continue
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			arith = true
		case *syntax.DblQuoted:
			if !decided {
				kind, decided = ctxDouble, true
			} else if kind == ctxParamWord {
				c.paramInDouble = true
			}
		}
		switch w.roots[n] {
		case rootArith:
			arith = true
		case rootName:
			kind, decided = ctxName, true // quoted or not, bash reads a name
		case rootParamWord:
			if !decided {
				kind, decided = ctxParamWord, true
			}
		case rootRefuse:
			kind, decided, arith = ctxRefuse, true, false
			bounded = true
		}
	}
	if arith && kind != ctxRefuse {
		kind = ctxArith
	}
	c.kind = kind
	return c
}

var (
	integer    = lazyre.New(`^(0|-?[1-9][0-9]{0,17})$`) // canonical: no -0, octal or overflow
	identifier = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

func (c where) quote(s string) (string, error) {
	var q string
	switch c.kind {
	case ctxArith:
		if !integer().MatchString(s) {
			return "", fmt.Errorf("the shell evaluates this place as arithmetic, so only an integer can go here, not %q", clipValue(s))
		}
		q = s
	case ctxName:
		if !identifier().MatchString(s) {
			return "", fmt.Errorf("the shell reads this place as a variable name, so only a name can go here, not %q", clipValue(s))
		}
		q = s
	case ctxRefuse:
		return "", fmt.Errorf(`a flow variable cannot go here (a heredoc delimiter, a ${x#pattern} or ${x/a/b} word, or '...' inside ${...}); assign it to a shell variable first and write "${x#"$var"}"`)
	case ctxDouble:
		q = escapeDouble(s, true)
	case ctxSingle:
		q = strings.ReplaceAll(s, "'", `'\''`)
	case ctxANSI:
		// \x27 and \x5c read as themselves where $'...' is plain '...'
		// (dash): no quote can close the string in either shell.
		q = strings.NewReplacer(`\`, `\x5c`, `'`, `\x27`).Replace(s)
	case ctxHeredoc:
		q = escapeDouble(s, false)
	case ctxRaw:
		if c.inSubst && strings.ContainsRune(s, 1) {
			// bash 5.2 drops a \x01 of a quoted heredoc inside $( ).
			return "", fmt.Errorf("bash loses \\x01 bytes in a quoted heredoc inside a command substitution; pass the value another way")
		}
		q = s
	case ctxParamWord:
		if len(c.hdocs) > 0 && c.backticks == 0 {
			return "", fmt.Errorf("a flow variable inside ${...} in a heredoc cannot be quoted; assign it to a shell variable first")
		}
		// Inside "${x:-...}" the word is double-quoted already (a nested
		// "..." would let bash brace-expand the value); outside, '...'.
		if c.paramInDouble {
			if strings.Contains(s, "'") {
				// bash pairs ' even here and keeps them: no escape exists.
				return "", fmt.Errorf(`bash cannot hold a ' inside "${x:-...}"; assign the variable to a shell variable first`)
			}
			q = strings.ReplaceAll(escapeDouble(s, true), "}", `\}`)
		} else {
			q = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	default:
		q = QuoteShell(s)
	}
	if err := c.checkHeredocs(s); err != nil {
		return "", err
	}
	if c.backticks > 1 {
		// The parser loses count of backticks nested in backticks (inside
		// "..." it reads \` as text where bash opens a substitution).
		return "", fmt.Errorf("a flow variable inside backticks nested in backticks cannot be placed safely; use $( ) instead")
	}
	for i := 0; i < c.backticks; i++ {
		// Old-style command substitution removes one level of
		// backslashes before its command is parsed.
		q = backtickEscape.Replace(q)
	}
	return q, nil
}

// checkHeredocs refuses a value that would end an enclosing heredoc early,
// or lose its leading tabs to <<-.
func (c where) checkHeredocs(s string) error {
	for _, r := range c.hdocs {
		if c.dash && dashDrops(c.linePrefix, s, heredocDelim(r.Word), r.Op == syntax.DashHdoc) {
			return fmt.Errorf("dash would drop a byte of the value in this heredoc (a line starting like its delimiter, then a non-ASCII byte); write ```bash {exec}")
		}
		delim := heredocDelim(r.Word)
		strip := r.Op == syntax.DashHdoc
		for i, l := range strings.Split(s, "\n") {
			if l == delim || strip && strings.TrimLeft(l, "\t") == delim {
				return fmt.Errorf("the value holds the line %q that would end the heredoc early", delim)
			}
			if strip && (i > 0 || c.lineStart) && strings.HasPrefix(l, "\t") {
				return fmt.Errorf("the value has lines starting with a tab, which <<- would strip")
			}
		}
	}
	return nil
}

// dashDrops reports whether dash 0.5 would lose a byte of s in a heredoc
// body: it drops a byte >= 0x80 that follows the start of a line matching
// the start of the delimiter ("E\xfe" under <<EOF). prefix is the script's
// text before s on its line; when it holds an expansion its value is not
// known, so any non-ASCII byte on that line counts.
func dashDrops(prefix, s, delim string, strip bool) bool {
	for i, l := range strings.Split(s, "\n") {
		if i == 0 {
			if strings.ContainsAny(prefix, "$`") {
				for k := 0; k < len(l) && k <= len(delim); k++ {
					if l[k] >= 0x80 {
						return true
					}
				}
				continue
			}
			l = prefix + l
		}
		if strip {
			l = strings.TrimLeft(l, "\t")
		}
		for k := 1; k <= len(delim) && k < len(l); k++ {
			if l[:k] == delim[:k] && l[k] >= 0x80 {
				return true
			}
		}
	}
	return false
}

// heredocDelim is the delimiter as the shell compares it: quotes removed.
func heredocDelim(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(x.Value, `\`, ""))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}

func clipValue(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}
