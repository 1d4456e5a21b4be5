// Package interp interpolates flow variables into text: $name, $obj.prop,
// $arr.0, $$ (all variables as JSON) and \$ (a literal dollar). Prompts get
// values as text; exec blocks get them quoted for the context they appear in
// (unquoted, '...', "...", a heredoc, a string literal of python, node, ruby
// or perl), so no value can break out into code. A $name that is not a flow
// variable is left as written, so shell and environment variables ($HOME,
// $FLOWDECK_DIR) still reach the interpreter.
package interp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

func child(v any, key string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[key]
		return c, ok
	case []any:
		n, err := strconv.Atoi(key)
		if err != nil || n < 0 || n >= len(x) || key != strconv.Itoa(n) {
			return nil, false
		}
		return x[n], true
	case []string:
		n, err := strconv.Atoi(key)
		if err != nil || n < 0 || n >= len(x) {
			return nil, false
		}
		return x[n], true
	}
	return nil, false
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

// ref reads the reference at src[i] == '$'. It returns the value and the
// bytes consumed, or ok=false when this $ is not a flow variable. Path
// segments are taken only while they resolve, so in "$name.txt" only $name
// is replaced when name is a string.
func ref(src string, i int, vars map[string]any) (any, int, bool) {
	if i+1 >= len(src) {
		return nil, 0, false
	}
	if src[i+1] == '$' {
		return vars, 2, true
	}
	if !isNameStart(src[i+1]) {
		return nil, 0, false
	}
	j := i + 1
	for j < len(src) && isNameChar(src[j]) {
		j++
	}
	v, ok := vars[src[i+1:j]]
	if !ok {
		return nil, 0, false
	}
	for j+1 < len(src) && src[j] == '.' && isNameChar(src[j+1]) {
		k := j + 1
		for k < len(src) && isNameChar(src[k]) {
			k++
		}
		c, ok := child(v, src[j+1:k])
		if !ok {
			break
		}
		v, j = c, k
	}
	return v, j - i, true
}

// String is a value as prose shows it: strings as they are, anything else
// as JSON (null for nil).
func String(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return JSON(v)
}

// JSON encodes v compactly without HTML escaping; maps have sorted keys.
func JSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Text interpolates prose (a step's prompt).
func Text(src string, vars map[string]any) string {
	if !strings.Contains(src, "$") {
		return src
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\\' && i+1 < len(src) && src[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		if c == '$' {
			if v, n, ok := ref(src, i, vars); ok {
				b.WriteString(String(v))
				i += n - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
