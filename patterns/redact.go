package patterns

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// Redacted replaces every secret.
const Redacted = "[REDACTED]"

// Redactor removes secrets from lines of output before they are stored or
// indexed. It is stateful per stream because a private key block spans
// lines: use one Redactor (or one Clone) per stream, line by line, in order.
//
// Built in: AWS access key ids (AKIA, ASIA, ...), GitHub tokens (ghp_, gho_,
// ghu_, ghs_, ghr_, github_pat_), GitLab tokens (glpat-), Slack tokens
// (xoxb-, xoxp-, ...) and webhook URLs, JWTs, Anthropic and OpenAI keys
// (sk-ant-, sk-), Stripe keys (sk_live_, rk_test_, pk_live_, ...), Bearer
// tokens, HTTP basic credentials, passwords in URLs, -----BEGIN ... PRIVATE
// KEY----- blocks through their END line, and assignments whose key ends in
// password, passwd, pwd, token, secret, secret_key, api_key, access_key,
// auth_key, private_key or credential(s) — with = or :, quoted or not, any
// case (AWS secret keys are written as such assignments). Assignments keep
// the key: `DB_PASSWORD=[REDACTED]`. User regexes replace their whole match,
// or only the group named "secret" when the regex has one.
//
// Secrets are looked for on the text a reader sees (see Line), so colour
// codes inside a token do not hide it.
type Redactor struct {
	rules *ruleSet
	key   keyBlock
}

type ruleSet struct {
	extra []userRule
}

type userRule struct {
	re    *regexp.Regexp
	group int // submatch to replace; 0 = the whole match
}

// NewRedactor returns a Redactor with the built-in rules plus the given
// regular expressions (Go RE2 syntax). A regex that does not compile is an
// error naming it.
func NewRedactor(extra []string) (*Redactor, error) {
	rs := &ruleSet{}
	for _, s := range extra {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("redaction regex %q: %v", s, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("redaction regex %q matches the empty string", s)
		}
		g := 0
		if i := re.SubexpIndex("secret"); i > 0 {
			g = i
		}
		rs.extra = append(rs.extra, userRule{re: re, group: g})
	}
	return &Redactor{rules: rs}, nil
}

// Clone returns a Redactor with the same rules and a fresh stream state.
func (r *Redactor) Clone() *Redactor {
	return &Redactor{rules: r.rules}
}

// Clean reports whether Line would return every line of text unchanged: no
// private key block is open, no user rule is set, and no built-in rule has a
// trigger anywhere in text, neither in its bytes nor in the text each line
// shows once escape sequences are removed. A caller can then keep text as it
// is without cutting it into lines, which is most of the cost of a flood of
// output. Text that a terminal could show otherwise than its printable text
// reads (\r, \b, bytes that are not UTF-8, C1 controls) is never clean:
// only Line looks at what the screen shows of it.
func (r *Redactor) Clean(text []byte) bool {
	if r.key.in || (r.rules != nil && len(r.rules.extra) > 0) || !noTrigger(text) {
		return false
	}
	if plain(text) {
		return true
	}
	if screenDiffers(text) {
		return false
	}
	var flat []byte
	for rest := text; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if plain(line) {
			continue // its text is its bytes, checked above
		}
		if flat = flatText(flat[:0], line); !noTrigger(flat) {
			return false
		}
		for _, v := range shownViews(line) {
			if !noTrigger(v) {
				return false
			}
		}
	}
	return true
}

func noTrigger(text []byte) bool {
	return !mayTrigger(text) && !bytes.Contains(text, []byte("PRIVATE KEY"))
}

// triggerPairs marks the first two bytes of every built-in trigger
// (case-folded; the AWS key prefixes only in upper case), so that mayTrigger
// looks closer at a few positions instead of every common letter. Built on
// first use: 64 KiB a process that redacts nothing need not touch.
var triggerPairs = sync.OnceValue(func() *[1 << 16]bool {
	t := new([1 << 16]bool)
	pair := func(first, seconds string) {
		for _, a := range first {
			for _, b := range seconds {
				t[uint16(a)<<8|uint16(b)] = true
			}
		}
	}
	pair("aA", "pPcCuU")   // api, access, auth_key, authorization
	pair("A", "KSBCGIRNP") // AWS access key ids: AKIA, ASIA, ABIA, ...
	pair("bB", "eE")       // bearer
	pair("cC", "rR")       // credential
	pair("gG", "hHiIlL")   // gh?_, github_pat_, glpat-
	pair("e", "y")         // eyJ (JWT)
	pair("hH", "oO")       // hooks.slack.com
	pair("pP", "aAwWrR")   // passw, pwd, private
	pair("p", "k")         // pk_live_, pk_test_
	pair("r", "k")         // rk_live_, rk_test_
	pair("sS", "eE")       // secret
	pair("s", "k")         // sk-, sk_live_, sk_test_
	pair("x", "o")         // xoxb-, xoxp-, ...
	pair("tT", "oO")       // token
	pair(":", "/")         // ://
	return t
})

// mayTrigger reports whether candidates would find anything in text, looking
// closely only where a byte pair starts a trigger.
func mayTrigger(text []byte) bool {
	triggerPairs := triggerPairs()
	for i := 0; i+1 < len(text); i++ {
		if triggerPairs[uint16(text[i])<<8|uint16(text[i+1])] && candidateAt(text[i:]) != 0 {
			return true
		}
	}
	return false
}

// stateless applies every rule that does not depend on earlier lines.
func (rs *ruleSet) stateless(line []byte) []byte {
	if m := candidates(line); m != 0 {
		for _, br := range builtinRules() {
			if m&br.mask != 0 {
				line = br.apply(line)
			}
		}
	}
	if rs != nil {
		for _, u := range rs.extra {
			line = replaceGroup(line, u.re, u.group, false, nil)
		}
	}
	return line
}

// Candidate bits: which built-in rules could match a line. Computed in one
// pass over the line so that lines without any trigger (nearly all of
// them) skip every regular expression.
const (
	mAWS uint16 = 1 << iota
	mToken
	mBearer
	mAssign
	mURL
	mBasic
	mSlack
	mJWT
	mKey // sk-…, sk-ant-…, and Stripe's sk_/rk_/pk_ live and test keys
)

type builtinRule struct {
	mask       uint16
	re         *regexp.Regexp
	group      int
	keepQuotes bool
	accept     func(val []byte) bool
}

func (br builtinRule) apply(line []byte) []byte {
	return replaceGroup(line, br.re, br.group, br.keepQuotes, br.accept)
}

// assignKeys are the key endings that make `key = value` a secret.
const assignKeys = `password|passwd|pwd|token|secret|secret[_-]?key|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?`

// builtinRules are compiled on first use, not at init: most flowdeck
// processes redact nothing.
var builtinRules = sync.OnceValue(func() []builtinRule {
	return []builtinRule{
		{mask: mAWS, re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b`)},
		{mask: mToken, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})`)},
		{mask: mSlack, re: regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
		{mask: mSlack, re: regexp.MustCompile(`(?i)\bhooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]+)`), group: 1},
		// Header and payload of a JWT are base64url JSON objects: both start
		// with eyJ ('{"'). The signature is empty for unsigned tokens.
		{mask: mJWT, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)},
		{mask: mKey, re: regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}|\b[srp]k_(?:live|test)_[A-Za-z0-9]{10,}`)},
		{mask: mBearer, re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]+)`), group: 1, accept: tokenLike},
		{mask: mBasic, re: regexp.MustCompile(`(?i)\bauthorization:\s*basic\s+([A-Za-z0-9+/=]+)`), group: 1},
		{mask: mURL, re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@`), group: 1},
		// The key must end with the keyword right before the separator, so
		// "token.go:12:" or "tokens: 5" are not assignments; a value may not
		// start with '=' so comparisons (password == x) are left alone.
		{mask: mAssign, re: regexp.MustCompile(`(?i)[A-Za-z0-9_.-]*(?:` + assignKeys + `)["']?\s*[:=]\s*("[^"]*"|'[^']*'|[^\s"',;&=][^\s"',;&]*)`), group: 1, keepQuotes: true},
	}
})

// tokenLike rejects prose after "bearer" ("bearer of bad news"): a token
// is long, or contains a character that words do not.
func tokenLike(v []byte) bool {
	if len(v) >= 24 {
		return true
	}
	if len(v) < 8 {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

// replaceGroup replaces submatch g (0: the whole match) of every match of
// re in line with [REDACTED]. With keepQuotes a quoted value keeps its
// quotes. It returns line itself when nothing matched.
func replaceGroup(line []byte, re *regexp.Regexp, g int, keepQuotes bool, accept func([]byte) bool) []byte {
	ms := re.FindAllSubmatchIndex(line, -1)
	if ms == nil {
		return line
	}
	var out []byte
	last := 0
	for _, m := range ms {
		s, e := m[2*g], m[2*g+1]
		if s < 0 || s == e {
			continue
		}
		if accept != nil && !accept(line[s:e]) {
			continue
		}
		if keepQuotes && e-s >= 2 && (line[s] == '"' || line[s] == '\'') && line[e-1] == line[s] {
			s, e = s+1, e-1
			if s == e {
				continue // an empty quoted value hides nothing
			}
		}
		if out == nil {
			out = make([]byte, 0, len(line)+len(Redacted))
		}
		out = append(out, line[last:s]...)
		out = append(out, Redacted...)
		last = e
	}
	if out == nil {
		return line
	}
	return append(out, line[last:]...)
}

// interesting marks the bytes at which candidates looks closer.
var interesting = func() (t [256]bool) {
	for _, c := range "AaBbCcEeGgHhPpRrSsTtXx:" {
		t[c] = true
	}
	return t
}()

func candidates(line []byte) uint16 {
	var m uint16
	for i := 0; i < len(line); i++ {
		if interesting[line[i]] {
			m |= candidateAt(line[i:])
		}
	}
	return m
}

// candidateAt says which rules a trigger starting at rest[0] calls for.
func candidateAt(rest []byte) uint16 {
	var m uint16
	c := rest[0]
	switch c | 0x20 {
	case 'a':
		if c == 'A' && len(rest) >= 20 && awsPrefix(rest) {
			m |= mAWS
		}
		if hasFold(rest, "api") || hasFold(rest, "access") || hasFold(rest, "auth_key") || hasFold(rest, "auth-key") || hasFold(rest, "authkey") {
			m |= mAssign
		}
		if hasFold(rest, "authorization") {
			m |= mBasic
		}
	case 'b':
		if hasFold(rest, "bearer") {
			m |= mBearer
		}
	case 'c':
		if hasFold(rest, "credential") {
			m |= mAssign
		}
	case 'g':
		if len(rest) >= 4 && rest[1] == 'h' && rest[3] == '_' || hasFold(rest, "github_pat_") || hasFold(rest, "glpat-") {
			m |= mToken
		}
	case 'e':
		if hasPrefix(rest, "eyJ") {
			m |= mJWT
		}
	case 'h':
		if hasFold(rest, "hooks.slack.com/") {
			m |= mSlack
		}
	case 'p':
		if hasFold(rest, "passw") || hasFold(rest, "pwd") || hasFold(rest, "private") {
			m |= mAssign
		}
		if stripeKey(rest) {
			m |= mKey
		}
	case 'r':
		if stripeKey(rest) {
			m |= mKey
		}
	case 's':
		if hasFold(rest, "secret") {
			m |= mAssign
		}
		if hasPrefix(rest, "sk-") || stripeKey(rest) {
			m |= mKey
		}
	case 'x':
		if len(rest) >= 5 && hasPrefix(rest, "xox") && rest[4] == '-' {
			m |= mSlack
		}
	case 't':
		if hasFold(rest, "token") {
			m |= mAssign
		}
	case ':':
		if len(rest) >= 3 && rest[1] == '/' && rest[2] == '/' {
			m |= mURL
		}
	}
	return m
}

func awsPrefix(b []byte) bool {
	switch string(b[:4]) {
	case "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA":
		return true
	}
	return false
}

// stripeKey reports whether b starts like a Stripe key: sk_, rk_ or pk_
// followed by live_ or test_.
func stripeKey(b []byte) bool {
	return len(b) >= 8 && (b[0] == 's' || b[0] == 'r' || b[0] == 'p') && b[1] == 'k' && b[2] == '_' && (hasPrefix(b[3:], "live_") || hasPrefix(b[3:], "test_"))
}

func hasPrefix(b []byte, s string) bool { return bytes.HasPrefix(b, []byte(s)) }

// hasFold reports whether b starts with lower, ignoring ASCII case.
func hasFold(b []byte, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// maxKeyLines bounds a private key block that never ends (a truncated
// dump): after that many lines redaction of the block stops, so one stray
// BEGIN line cannot blank the rest of a long log. Real keys are far shorter.
const maxKeyLines = 1000

var (
	keyBegin = lazyre.New(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)
	keyEnd   = lazyre.New(`-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)
)

// keyBlock tracks whether the stream is inside a private key block.
type keyBlock struct {
	in    bool
	lines int
}

func (k *keyBlock) apply(line []byte) []byte {
	if !k.in {
		if !bytes.Contains(line, []byte("PRIVATE KEY")) {
			return line
		}
		b := keyBegin().FindIndex(line)
		if b == nil {
			return line
		}
		out := append([]byte(nil), line[:b[1]]...)
		rest := line[b[1]:]
		if e := keyEnd().FindIndex(rest); e != nil {
			// The whole key on one line (a JSON string with \n escapes).
			out = append(out, Redacted...)
			out = append(out, rest[e[0]:e[1]]...)
			return append(out, k.apply(rest[e[1]:])...)
		}
		k.in, k.lines = true, 0
		if len(bytes.TrimSpace(rest)) > 0 {
			out = append(out, Redacted...)
		}
		return out
	}
	k.lines++
	if e := keyEnd().FindIndex(line); e != nil {
		k.in = false
		out := make([]byte, 0, len(line)+len(Redacted))
		if len(bytes.TrimSpace(line[:e[0]])) > 0 {
			out = append(out, Redacted...)
		}
		return append(out, line[e[0]:]...)
	}
	if k.lines >= maxKeyLines {
		k.in = false
	}
	return []byte(Redacted)
}
