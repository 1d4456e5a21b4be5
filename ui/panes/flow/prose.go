package flow

import (
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

// Prose turns a prompt's markdown into plain text for a box.
func Prose(s string) string {
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
