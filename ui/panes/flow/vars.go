package flow

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/flowdeck/flowdeck/ui/layout"
)

// varLines shows the collected variables, one per line, values cut to w:
// strings quoted, structures as compact JSON with long strings shortened.
// The flow's own variables come first, then what flowdeck sets (the last
// decision, exec block and agent); $ARGUMENTS is in the header already.
func varLines(vars map[string]any, w int) []string {
	names := make([]string, 0, len(vars))
	for k := range vars {
		if k != "ARGUMENTS" {
			names = append(names, k)
		}
	}
	builtin := func(k string) bool { return k == "decision" || k == "exec" || k == "agent" }
	sort.Slice(names, func(i, j int) bool {
		if bi, bj := builtin(names[i]), builtin(names[j]); bi != bj {
			return bj
		}
		return names[i] < names[j]
	})
	out := make([]string, 0, len(names))
	for _, k := range names {
		out = append(out, layout.Cut(k+" = "+brief(vars[k]), max(1, w)))
	}
	return out
}

// brief renders a value on one line; strings inside are cut so that an
// exec block's 64 KiB output costs nothing.
func brief(v any) string {
	raw, err := json.Marshal(shorten(v, 0))
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.NewReplacer("\\n", "⏎", "\\t", " ").Replace(string(raw))
}

func shorten(v any, depth int) any {
	switch x := v.(type) {
	case string:
		if r := []rune(x); len(r) > 60 {
			return string(r[:59]) + "…"
		}
		return x
	case map[string]any:
		if depth > 2 {
			return "{…}"
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = shorten(e, depth+1)
		}
		return out
	case []any:
		if depth > 2 {
			return "[…]"
		}
		n := min(len(x), 8)
		out := make([]any, 0, n+1)
		for _, e := range x[:n] {
			out = append(out, shorten(e, depth+1))
		}
		if len(x) > n {
			out = append(out, fmt.Sprintf("… %d more", len(x)-n))
		}
		return out
	}
	return v
}
