package flow

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/flowdeck/flowdeck/flows"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/layout"
)

// varLines says in words what the run works on, one "name: value" per
// line cut to w: the flow's arguments, the feature and the agent, the
// answers its steps collected, and the last decision. The variables a flow
// computes for itself (set, store-mode exec blocks, $exec, $agent) are its
// plumbing and are left out: `flowdeck flows runs ID --json` has them all.
// Those in skip are said elsewhere (the answer section).
func varLines(v *flows.RunView, w int, skip map[string]any) []string {
	vars := v.Run.Vars
	var out []string
	done := map[string]bool{}
	for k := range skip {
		done[k] = true
	}
	add := func(name, value string) {
		if value == "" || done[name] {
			return
		}
		done[name] = true
		out = append(out, layout.Cut(OneLine(name)+": "+value, max(1, w)))
	}
	for i, name := range v.Args {
		x, ok := vars[name]
		if !ok && i < len(v.Run.Args) {
			x = v.Run.Args[i]
		}
		add(name, words(x))
	}
	add("feature", words(vars["feature"]))
	// The built-in flows name the agent that claimed the feature agent_name;
	// else the last agent that answered says its role.
	agent, _ := vars["agent_name"].(string)
	if a, ok := vars["agent"].(map[string]any); ok && agent == "" {
		agent, _ = a["role"].(string)
	}
	add("agent", words(agent))
	for _, name := range v.Asked {
		if x, ok := vars[name]; ok {
			add(name, words(x))
		}
	}
	if d, ok := vars["decision"].(map[string]any); ok && !(v.Decision != nil && v.Decision.Status == model.DecisionPending) {
		s := words(d["option"])
		if by := words(d["actor"]); by != "" && s != "" {
			s += " (by " + by + ")"
		}
		if note := words(d["note"]); note != "" {
			s += ": " + note
		}
		add("decision", s)
	}
	return out
}

// answerLabel heads the answer section: which step answered, and who.
func answerLabel(v *flows.RunView, a *flows.ActionAnswer) string {
	label := "answer"
	for _, s := range v.Steps {
		if s.Name == a.Step {
			label += " of " + title(s)
			if who := who(s); who != "" && who != "you" {
				label += " (" + who + ")"
			}
			break
		}
	}
	return label
}

// answerLines says an action's answer in words, one variable a line, by
// name.
func answerLines(a *flows.ActionAnswer, w int) []string {
	names := make([]string, 0, len(a.Vars))
	for k := range a.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, k := range names {
		out = append(out, layout.Cut(OneLine(k)+": "+words(a.Vars[k]), max(1, w)))
	}
	return slices.DeleteFunc(out, func(l string) bool { return strings.HasSuffix(l, ": ") })
}

// words says a value the way a person reads it: strings as they are (one
// line, shortened), yes/no, numbers as written, a list of short items
// joined by "; ", and a structure as its fields ("passed: yes, summary: …"),
// nested ones counted. Never JSON.
func words(x any) string { return wordsAt(x, 0) }

func wordsAt(x any, depth int) string {
	switch x := x.(type) {
	case nil:
		return ""
	case string:
		s := OneLine(x)
		if r := []rune(s); len(r) > 80 {
			s = string(r[:79]) + "…"
		}
		return s
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case []any:
		if len(x) == 0 {
			return "none"
		}
		if depth > 0 || len(x) > 4 {
			return count(len(x), "item")
		}
		parts := make([]string, 0, len(x))
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				return count(len(x), "item")
			}
			parts = append(parts, wordsAt(e, depth+1))
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		if len(x) == 0 {
			return "none"
		}
		if depth > 0 {
			return count(len(x), "field")
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			if s := wordsAt(x[k], depth+1); s != "" {
				parts = append(parts, OneLine(k)+": "+s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return OneLine(fmt.Sprint(x))
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
