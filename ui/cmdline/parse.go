// Package cmdline is the cockpit's ":" command line: parsing the /flow-*
// actions as a person types them, completion of action names and ids, and
// history. It knows nothing of the store; the root model turns a parsed
// Command into an action.
package cmdline

import (
	"fmt"
	"strings"
)

// Spec describes one command for parsing, completion and help.
type Spec struct {
	Name  string
	Usage string
	// Args says what the words after the name complete to: "feature",
	// "session", "reset" (feature|session, then a feature id), "flow" (a
	// flow name), "flowrun" (a flow run id) or "".
	Args string
}

// Specs are the commands the line accepts.
var Specs = []Spec{
	{"/flow-plan", "/flow-plan [GOAL]", ""},
	{"/flow-run", "/flow-run [FEATURE]", "feature"},
	{"/flow-auto", "/flow-auto [AGENTS]", ""},
	{"/flow", "/flow FLOW|FILE [ARGS]", "flow"},
	{"/flow-show", "/flow-show [FLOW-RUN]", "flowrun"},
	{"/flow-status", "/flow-status", ""},
	{"/flow-history", "/flow-history", ""},
	{"/flow-session", "/flow-session ID", "session"},
	{"/flow-reset", "/flow-reset feature ID | /flow-reset session", "reset"},
	{"/flow-approve", "/flow-approve", ""},
	{"/flow-apply", "/flow-apply FILE", ""},
	{"/flow-complete", "/flow-complete FEATURE [completed|replan_required|blocked] [SUMMARY]", "feature"},
	{"/flow-validate", "/flow-validate FEATURE passed|failed|partial targeted|broad CMD", "feature"},
	{"/flow-review", "/flow-review FEATURE|final approved|needs_fix|blocked [FINDINGS; …]", "feature"},
	{"/flow-note", "/flow-note TEXT", ""},
	{"/run", "/run CMD", ""},
	{"/quit", "/quit (or q, :q)", ""},
}

// aliases are other names of a command: vim's and k9s's :q.
var aliases = map[string]string{"/q": "/quit"}

// Command is a parsed line: the command's name, its words, and the raw text
// after the name (goals, notes and commands keep their spacing).
type Command struct {
	Name string
	Args []string
	Rest string
}

// Parse reads a line. The leading "/" may be left out.
func Parse(line string) (Command, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return Command{}, fmt.Errorf("type a command, e.g. /flow-status (tab completes)")
	}
	name, rest, _ := strings.Cut(line, " ")
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if a, ok := aliases[name]; ok {
		name = a
	}
	for _, s := range Specs {
		if s.Name == name {
			rest = strings.TrimSpace(rest)
			return Command{Name: name, Args: strings.Fields(rest), Rest: rest}, nil
		}
	}
	if c := candidates(name, names()); len(c) > 0 {
		return Command{}, fmt.Errorf("unknown command %s: did you mean %s?", name, strings.Join(c, ", "))
	}
	return Command{}, fmt.Errorf("unknown command %s: one of %s", name, strings.Join(names(), ", "))
}

// UsageOf returns the usage line of a command name.
func UsageOf(name string) string {
	for _, s := range Specs {
		if s.Name == name {
			return s.Usage
		}
	}
	return ""
}

func names() []string {
	out := make([]string, len(Specs))
	for i, s := range Specs {
		out[i] = s.Name
	}
	return out
}

func argsOf(name string) string {
	for _, s := range Specs {
		if s.Name == name {
			return s.Args
		}
	}
	return ""
}

// candidates returns the words starting with prefix.
func candidates(prefix string, words []string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) && w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Pools are what arguments complete to.
type Pools struct {
	Features, Sessions []string
	Flows              []string // flow names (built-in and the project's)
	FlowRuns           []string // flow run ids, newest first
}

// Complete returns the completions of the last word of line: the new line for
// each candidate.
func Complete(line string, p Pools) []string {
	fields := strings.Fields(line)
	trailing := strings.HasSuffix(line, " ")
	if len(fields) == 0 || len(fields) == 1 && !trailing {
		word := ""
		if len(fields) == 1 {
			word = fields[0]
		}
		if !strings.HasPrefix(word, "/") {
			word = "/" + word
		}
		var out []string
		for _, c := range candidates(word, names()) {
			out = append(out, c+" ")
		}
		return out
	}
	name := fields[0]
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	pos := len(fields) - 1 // index of the word being completed
	word := fields[pos]
	if trailing {
		pos, word = len(fields), ""
	}
	var pool []string
	switch argsOf(name) {
	case "feature":
		if pos == 1 {
			pool = p.Features
		}
	case "session":
		if pos == 1 {
			pool = p.Sessions
		}
	case "flow":
		if pos == 1 {
			pool = p.Flows
		}
	case "flowrun":
		if pos == 1 {
			pool = p.FlowRuns
		}
	case "reset":
		switch {
		case pos == 1:
			pool = []string{"feature", "session"}
		case pos == 2 && fields[1] == "feature":
			pool = p.Features
		}
	}
	base := strings.Join(fields[:pos], " ") + " "
	var out []string
	for _, c := range candidates(word, pool) {
		out = append(out, base+c+" ")
	}
	return out
}

// commonPrefix is the longest prefix all of ss share.
func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
