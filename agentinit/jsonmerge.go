package agentinit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object that keeps its keys in file order, so that a
// merged config file differs from the user's only where flowdeck added
// something.
type object struct {
	keys []string
	vals map[string]any // *object, []any, json.Number, string, bool or nil
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// parseObject reads a JSON document whose top level is an object.
func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the top-level object")
	}
	o, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("the top level is not an object")
	}
	return o, nil
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k.(string), v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// encode writes v with two-space indentation and a final newline.
func encode(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// writeValue writes v as if it starts on a line indented by indent, one
// more unit per level.
func writeValue(b *bytes.Buffer, v any, indent, unit string) {
	switch v := v.(type) {
	case *object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(indent + unit)
			writeScalar(b, k)
			b.WriteString(": ")
			writeValue(b, v.vals[k], indent+unit, unit)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		if allScalars(v) {
			// Short lists of strings (argv) read best on one line.
			b.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				writeScalar(b, x)
			}
			b.WriteByte(']')
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(indent + unit)
			writeValue(b, x, indent+unit, unit)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		writeScalar(b, v)
	}
}

func allScalars(v []any) bool {
	for _, x := range v {
		switch x.(type) {
		case *object, []any:
			return false
		}
	}
	return true
}

func writeScalar(b *bytes.Buffer, v any) {
	var s strings.Builder
	enc := json.NewEncoder(&s)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // strings, numbers, bools, nil: cannot fail
	b.WriteString(strings.TrimSuffix(s.String(), "\n"))
}

// mergeMissing adds to dst every key of src that dst lacks, recursing into
// objects both have. A value the user set is never replaced, even when it
// differs from flowdeck's: it was chosen on purpose.
func mergeMissing(dst, src *object) (changed bool) {
	for _, k := range src.keys {
		sv := src.vals[k]
		dv, ok := dst.get(k)
		if !ok {
			dst.set(k, sv)
			changed = true
			continue
		}
		do, dok := dv.(*object)
		so, sok := sv.(*object)
		if dok && sok && mergeMissing(do, so) {
			changed = true
		}
	}
	return changed
}

// obj builds an object from key/value pairs, in order.
func obj(kv ...any) *object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}
