package config

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Setting is one value of the merged configuration and where it came from.
type Setting struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
	// From are the file and line that set it (two for run.redact, whose
	// rules add up); empty for a default.
	From []Origin `json:"from,omitempty"`
}

// Origin is a file and line.
type Origin struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (o Origin) String() string {
	if o.Line == 0 {
		return o.File
	}
	return o.File + ":" + strconv.Itoa(o.Line)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// layer is one file's values and lines.
type layer struct {
	path   string
	values map[string]any
	lines  map[string]int
}

func readLayer(path string, data []byte) *layer {
	if data == nil {
		return nil
	}
	var tree map[string]any
	md, err := toml.Decode(string(data), &tree)
	if err != nil {
		return nil
	}
	l := &layer{path: path, values: map[string]any{}, lines: keyLines(data, md.Keys())}
	walk(tree, nil, func(k toml.Key, v any) { l.values[k.String()] = v })
	return l
}

// has reports whether the layer sets key or anything under it.
func (l *layer) has(key string) bool {
	if l == nil {
		return false
	}
	for k := range l.values {
		if k == key || strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

func (l *layer) origin(key string) Origin { return Origin{File: l.path, Line: l.lines[key]} }

// Settings are the values in effect, each with the file and line that set
// it, or none for a default; values a file set but that were dropped as
// broken are not among them (the load's errors say why). redact, when not
// nil, is applied to every string value: a user's file may hold a key.
func (c Config) Settings(redact func(string) string) []Setting {
	user, proj := readLayer(c.Path, c.raw), readLayer(c.ProjectPath, c.projectRaw)
	var eff map[string]any
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err == nil {
		toml.Decode(buf.String(), &eff)
	}
	defaults := map[string]any{"bell": BellBell, "theme": "auto", "mouse": true}
	var out []Setting
	walk(eff, nil, func(k toml.Key, v any) {
		key := k.String()
		var from []Origin
		switch {
		case k[0] == "agents" && len(k) > 2:
			// An agent comes whole from one file: the project's when it has it.
			src := user
			if proj.has(toml.Key(k[:2]).String()) {
				src = proj
			}
			if src == nil || !src.has(key) {
				return
			}
			from = []Origin{src.origin(key)}
		case key == "run.redact":
			for _, l := range []*layer{user, proj} {
				if l.has(key) {
					from = append(from, l.origin(key))
				}
			}
		default:
			for _, l := range []*layer{proj, user} {
				if l.has(key) && jsonText(l.values[key]) == jsonText(v) {
					from = []Origin{l.origin(key)}
					break
				}
			}
		}
		if from == nil {
			if _, ok := defaults[key]; !ok {
				return // unset, or set and dropped as broken
			}
		}
		out = append(out, Setting{Key: key, Value: redactValue(v, redact), From: from})
	})
	if c.Mouse == nil {
		out = append(out, Setting{Key: "mouse", Value: true})
	}
	slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func redactValue(v any, redact func(string) string) any {
	if redact == nil {
		return v
	}
	switch v := v.(type) {
	case string:
		return redact(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = redactValue(x, redact)
		}
		return out
	}
	return v
}
