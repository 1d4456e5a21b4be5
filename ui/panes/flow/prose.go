package flow

import (
	"encoding/json"
	"regexp"
	"strings"
)

// A flow's prompt is markdown written for an agent; a person reads it in a
// box. Prose keeps the words and drops what only a markdown renderer needs:
// HTML comments, emphasis and code markers, heading hashes, fence lines,
// and the targets of relative links.
var (
	htmlComment  = regexp.MustCompile(`(?s)<!--.*?-->`)
	mdLink       = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)
	mdEmphasis   = regexp.MustCompile(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	mdCode       = regexp.MustCompile("`([^`\n]+)`")
	mdHeading    = regexp.MustCompile(`(?m)^#{1,6}\s+`)
	mdFence      = regexp.MustCompile("(?m)^\\s*(```|~~~).*$\n?")
	blankRunsOf3 = regexp.MustCompile(`\n{3,}`)
)

// Prose turns a prompt's markdown into plain text for a box, and the JSON
// an exec block or agent printed into it into words.
func Prose(s string) string {
	if strings.ContainsAny(s, "{[") {
		s = jsonAsWords(s)
	}
	if !strings.ContainsAny(s, "<[*_`#~") {
		return s
	}
	s = htmlComment.ReplaceAllString(s, "")
	s = mdFence.ReplaceAllString(s, "")
	s = mdLink.ReplaceAllStringFunc(s, func(l string) string {
		m := mdLink.FindStringSubmatch(l)
		if strings.Contains(m[2], "://") && m[2] != m[1] {
			return m[1] + " (" + m[2] + ")"
		}
		return m[1]
	})
	s = mdEmphasis.ReplaceAllString(s, "$2")
	s = mdCode.ReplaceAllString(s, "$1")
	s = mdHeading.ReplaceAllString(s, "")
	return strings.TrimSpace(blankRunsOf3.ReplaceAllString(s, "\n\n"))
}

// jsonAsWords replaces each JSON object or array that starts a line (one
// line, or pretty-printed over several) with its fields in words.
func jsonAsWords(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
			out = append(out, lines[i])
			continue
		}
		// The shortest run of lines from here that is one JSON value; a
		// bound keeps a stray brace from costing a scan of the whole prompt.
		end := -1
		var v any
		for j := i; j < min(len(lines), i+400) && end < 0; j++ {
			if c := strings.TrimSpace(lines[j]); !strings.HasSuffix(c, "}") && !strings.HasSuffix(c, "]") {
				continue
			}
			if json.Unmarshal([]byte(strings.Join(lines[i:j+1], "\n")), &v) == nil {
				end = j
			}
		}
		if end < 0 {
			out = append(out, lines[i])
			continue
		}
		indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
		out = append(out, indent+words(v))
		i = end
	}
	return strings.Join(out, "\n")
}
