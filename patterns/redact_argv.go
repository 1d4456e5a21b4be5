package patterns

import (
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// secretOption names an option whose next argument is a secret:
// --password X, --api-key X, --client-secret X, ...
var secretOption = lazyre.New(`(?i)^--?[a-z0-9_-]*(?:` + assignKeys + `)$`)

// passwordTools take a password after a short option (mysql -p X, sshpass
// -p X, redis-cli -a X), which means other things for other programs
// (mkdir -p, go test -p 4), so it counts only after one of them.
var passwordTools = map[string]string{
	"mysql": "-p", "mysqldump": "-p", "mysqladmin": "-p", "mysqlimport": "-p", "mysqlshow": "-p",
	"mariadb": "-p", "mariadb-dump": "-p", "mariadb-admin": "-p", "sshpass": "-p", "redis-cli": "-a",
}

// userOptions carry user:password (curl -u, --proxy-user).
var userOptions = map[string]bool{"-u": true, "--user": true, "-U": true, "--proxy-user": true}

// Argv returns a copy of a command's argument list with its secrets
// redacted: each word as Line redacts it, and the word after an option that
// names a secret (--password X, --token X, -p X after mysql or sshpass,
// the password of curl -u user:pass).
func (r *Redactor) Argv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Command(a)
	}
	redactWords(out)
	return out
}

// Command returns a command line given as text (a validation command, a
// shell script) with its secrets redacted: each line as Line redacts it,
// then option values as Argv does, on its whitespace-separated words.
func (r *Redactor) Command(cmd string) string {
	lines := strings.Split(cmd, "\n")
	for i, l := range lines {
		lines[i] = string(r.Clone().Line([]byte(l)))
	}
	cmd = strings.Join(lines, "\n")
	spans := wordSpans(cmd)
	words := make([]string, len(spans))
	for i, s := range spans {
		words[i] = cmd[s[0]:s[1]]
	}
	if !redactWords(words) {
		return cmd
	}
	var b strings.Builder
	last := 0
	for i, s := range spans {
		b.WriteString(cmd[last:s[0]])
		b.WriteString(words[i])
		last = s[1]
	}
	b.WriteString(cmd[last:])
	return b.String()
}

// redactWords redacts, in place, the words that follow secret options. It
// reports whether it changed anything.
func redactWords(words []string) bool {
	changed, tool := false, ""
	for i := 0; i < len(words); i++ {
		w := unquote(words[i])
		if t, ok := passwordTools[filepath.Base(w)]; ok {
			tool = t
		}
		next := i+1 < len(words)
		switch {
		case secretOption().MatchString(w) || tool != "" && w == tool:
			if next {
				words[i+1] = hideValue(words[i+1])
				changed = true
				i++
			}
		case tool != "" && len(w) > len(tool) && strings.HasPrefix(w, tool) && !strings.HasPrefix(w, "--"):
			words[i] = tool + Redacted // mysql -pSECRET
			changed = true
		case userOptions[w] && next && strings.Contains(words[i+1], ":"):
			v := words[i+1]
			words[i+1] = v[:strings.IndexByte(v, ':')+1] + Redacted
			changed = true
			i++
		}
	}
	return changed
}

// hideValue replaces a value, keeping the quotes around it.
func hideValue(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[:1] + Redacted + v[:1]
	}
	if v == Redacted {
		return v
	}
	return Redacted
}

func unquote(w string) string {
	if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
		return w[1 : len(w)-1]
	}
	return w
}

// wordSpans cuts text into words at unquoted whitespace; a quoted part
// ('a b' or "a b") stays within its word.
func wordSpans(text string) [][2]int {
	var spans [][2]int
	start, quote := -1, byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == ' ' || c == '\t' || c == '\n':
			if start >= 0 {
				spans = append(spans, [2]int{start, i})
				start = -1
			}
			continue
		case c == '"' || c == '\'':
			quote = c
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(text)})
	}
	return spans
}
