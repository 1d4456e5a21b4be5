package agentinit

import (
	"bytes"
	"strings"

	"github.com/tailscale/hujson"
)

// JSONC (comments, trailing commas: opencode.jsonc, hand-kept settings) is
// read with hujson and written back in place: flowdeck's additions are
// grafted onto the parsed tree, so every comment, trailing comma and the
// file's own layout stay, and only the additions are new text.

// readJSONC parses data as JSON with comments. std is its standard JSON
// reading; tree is nil when data was plain JSON already.
func readJSONC(data []byte) (std *object, tree *hujson.Value, err error) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, nil, err
	}
	plain := v.Clone()
	plain.Standardize()
	if std, err = parseObject(plain.Pack()); err != nil {
		return nil, nil, err
	}
	if v.IsStandard() {
		return std, nil, nil
	}
	return std, &v, nil
}

// graft makes v (whose standard reading is before) read as after, touching
// only what differs: a new object member or list element is appended in the
// container's style, a changed scalar is replaced. indent is the
// indentation of v's own line, unit one level more.
func graft(v *hujson.Value, before, after any, indent, unit string) {
	switch a := after.(type) {
	case *object:
		obj, ok := v.Value.(*hujson.Object)
		b, _ := before.(*object)
		if !ok || b == nil {
			replace(v, after, indent, unit)
			return
		}
		for _, k := range a.keys {
			if bv, had := b.get(k); had {
				if m := member(obj, k); m != nil {
					graft(&m.Value, bv, a.vals[k], indent+unit, unit)
					continue
				}
			}
			name := hujson.Value{Value: hujson.Literal(scalarJSON(k))}
			var first hujson.Extra
			trailing := false
			if n := len(obj.Members); n > 0 {
				first, trailing = obj.Members[0].Name.BeforeExtra, obj.Members[n-1].Value.AfterExtra != nil
			}
			appendItem(&obj.AfterExtra, first, len(obj.Members), indent, unit, func(before hujson.Extra, inline bool, mi string) {
				name.BeforeExtra = before
				val := newValue(a.vals[k], mi, unit, inline)
				val.BeforeExtra = hujson.Extra(" ")
				if trailing {
					val.AfterExtra = hujson.Extra{}
				}
				obj.Members = append(obj.Members, hujson.ObjectMember{Name: name, Value: val})
			})
		}
	case []any:
		arr, ok := v.Value.(*hujson.Array)
		b, _ := before.([]any)
		if !ok {
			replace(v, after, indent, unit)
			return
		}
		for i, x := range a {
			if i < len(b) && i < len(arr.Elements) {
				graft(&arr.Elements[i], b[i], x, indent+unit, unit)
				continue
			}
			var first hujson.Extra
			trailing := false
			if n := len(arr.Elements); n > 0 {
				first, trailing = arr.Elements[0].BeforeExtra, arr.Elements[n-1].AfterExtra != nil
			}
			appendItem(&arr.AfterExtra, first, len(arr.Elements), indent, unit, func(before hujson.Extra, inline bool, ei string) {
				val := newValue(x, ei, unit, inline)
				val.BeforeExtra = before
				if trailing {
					val.AfterExtra = hujson.Extra{}
				}
				arr.Elements = append(arr.Elements, val)
			})
		}
	default:
		if scalarJSON(before) != scalarJSON(after) {
			replace(v, after, indent, unit)
		}
	}
}

// appendItem works out where a new last item of a container goes and lets
// add put it there: its leading extra (comments that followed the last
// item, then a new line at the items' indent), whether the container is on
// one line, the items' indent, and whether items end with a comma.
// first is the extra before the first of the n items there are (their
// indent). The caller gives the new item a trailing comma when the last one
// had one.
func appendItem(closing *hujson.Extra, first hujson.Extra, n int, indent, unit string,
	add func(before hujson.Extra, inline bool, itemIndent string)) {
	itemIndent := indent + unit
	if in, ok := lineIndent(first); ok && n > 0 {
		itemIndent = in
	}
	head, tail, multiline := splitClosing(*closing)
	switch {
	case n > 0 && !multiline:
		// {"a": 1} stays on one line.
		add(append(head, ' '), true, itemIndent)
	case n == 0 && !multiline:
		add(append(head, []byte("\n"+itemIndent)...), false, itemIndent)
		tail = hujson.Extra("\n" + indent)
	default:
		add(append(head, []byte("\n"+itemIndent)...), false, itemIndent)
	}
	*closing = tail
}

// member is the object's member named k (the last, as JSON readers take).
func member(obj *hujson.Object, k string) *hujson.ObjectMember {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == k {
			return &obj.Members[i]
		}
	}
	return nil
}

// splitClosing splits the extra before a closing brace into what belongs to
// the last item's line (trailing comments, blank lines) and the closing
// line's own new line and indent.
func splitClosing(e hujson.Extra) (head, tail hujson.Extra, multiline bool) {
	i := bytes.LastIndexByte(e, '\n')
	if i < 0 {
		return hujson.Extra(bytes.Clone(e)), hujson.Extra{}, false
	}
	return hujson.Extra(bytes.Clone(e[:i])), hujson.Extra(bytes.Clone(e[i:])), true
}

// lineIndent is the whitespace after the last new line of e.
func lineIndent(e hujson.Extra) (string, bool) {
	i := bytes.LastIndexByte(e, '\n')
	if i < 0 || len(bytes.Trim(e[i+1:], " \t")) != 0 {
		return "", false
	}
	return string(e[i+1:]), true
}

// newValue is v as hujson, written as if it starts on a line indented by
// indent (or on one line).
func newValue(v any, indent, unit string, inline bool) hujson.Value {
	var b bytes.Buffer
	if inline {
		writeInline(&b, v)
	} else {
		writeValue(&b, v, indent, unit)
	}
	parsed, err := hujson.Parse(b.Bytes())
	if err != nil {
		panic("agentinit: encoded JSON does not parse: " + err.Error()) // our own encoder's output
	}
	return hujson.Value{Value: parsed.Value}
}

// replace puts after in v's place, keeping the comments around it.
func replace(v *hujson.Value, after any, indent, unit string) {
	v.Value = newValue(after, indent, unit, false).Value
}

// writeInline writes v on one line, keys in order.
func writeInline(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeScalar(b, k)
			b.WriteString(": ")
			writeInline(b, v.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeInline(b, x)
		}
		b.WriteByte(']')
	default:
		writeScalar(b, v)
	}
}

func scalarJSON(v any) string {
	var b bytes.Buffer
	writeValue(&b, v, "", "")
	return b.String()
}

// unitOf is the file's indentation unit: the leading whitespace of its first
// indented line, else two spaces.
func unitOf(text string) string {
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}
