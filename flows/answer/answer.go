// Package answer reads the variables a step collects out of an agent's
// output (the last JSON object it printed, fenced or not) or a person's form
// answers, and coerces them to the declared types. Its errors are written to
// be shown to the agent on a retry.
package answer

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/flowdeck/flowdeck/flows/flowfile"
)

// maxScan bounds how much of the end of an output is searched for JSON.
const maxScan = 256 << 10

// LastObject returns the last top-level JSON object in text.
func LastObject(text string) (map[string]any, bool) {
	if len(text) > maxScan {
		text = text[len(text)-maxScan:]
	}
	var last map[string]any
	found := false
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			continue
		}
		last, found = obj, true
		i += int(dec.InputOffset()) - 1
	}
	return last, found
}

// Extract finds the answer in an agent's output and coerces the fields.
func Extract(output string, fields []flowfile.Var) (map[string]any, error) {
	obj, ok := LastObject(output)
	if !ok {
		return nil, fmt.Errorf("no JSON object found in the answer")
	}
	return Coerce(obj, fields)
}

// Coerce checks obj against fields: every field present and of its type
// (numbers and booleans written as strings are accepted). Every problem is
// listed.
func Coerce(obj map[string]any, fields []flowfile.Var) (map[string]any, error) {
	out := map[string]any{}
	var problems []string
	for _, f := range fields {
		v, ok := obj[f.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%q is missing (want %s)", f.Name, f.TypeText()))
			continue
		}
		c, err := Value(v, f)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%q: %v", f.Name, err))
			continue
		}
		out[f.Name] = c
	}
	if len(problems) > 0 {
		return out, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return out, nil
}

// Value coerces one value to f's type.
func Value(v any, f flowfile.Var) (any, error) {
	switch f.Type {
	case "string":
		switch x := v.(type) {
		case string:
			return x, nil
		case float64, bool:
			return fmt.Sprint(x), nil
		}
		return nil, fmt.Errorf("want a string, got %s", kind(v))
	case "number":
		switch x := v.(type) {
		case float64:
			return x, nil
		case string:
			n, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err == nil && !math.IsInf(n, 0) && !math.IsNaN(n) {
				return n, nil
			}
		}
		return nil, fmt.Errorf("want a number, got %s", kind(v))
	case "bool":
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "yes", "y":
				return true, nil
			case "false", "no", "n":
				return false, nil
			}
		}
		return nil, fmt.Errorf("want true or false, got %s", kind(v))
	case "array":
		switch x := v.(type) {
		case []any:
			return x, nil
		case string:
			var arr []any
			if json.Unmarshal([]byte(x), &arr) == nil {
				return arr, nil
			}
		}
		return nil, fmt.Errorf("want an array, got %s", kind(v))
	case "enum":
		s, ok := v.(string)
		if ok {
			for _, e := range f.Enum {
				if strings.EqualFold(strings.TrimSpace(s), e) {
					return e, nil
				}
			}
		}
		return nil, fmt.Errorf("want one of %s, got %s", strings.Join(f.Enum, ", "), kind(v))
	}
	return v, nil // json: anything
}

// FromText coerces a person's typed answer: JSON where the type wants
// structure (or where it parses, for json), the text itself otherwise.
func FromText(text string, f flowfile.Var) (any, error) {
	switch f.Type {
	case "json", "array":
		var v any
		if err := json.Unmarshal([]byte(text), &v); err == nil {
			return Value(v, f)
		}
		if f.Type == "json" {
			return text, nil
		}
	}
	return Value(text, f)
}

func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return strconv.Quote(x)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Instruction is what a prompt asks for when the step collects fields.
func Instruction(fields []flowfile.Var) string {
	var b strings.Builder
	b.WriteString("Answer with one JSON object with exactly these keys, as the last thing you print (a ```json block is fine):\n")
	for _, f := range fields {
		fmt.Fprintf(&b, "- %q: %s", f.Name, describe(f))
		if f.Description != "" {
			fmt.Fprintf(&b, " — %s", f.Description)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func describe(f flowfile.Var) string {
	switch f.Type {
	case "enum":
		return "one of " + strings.Join(quoteAll(f.Enum), ", ")
	case "bool":
		return "true or false"
	case "json":
		return "any JSON value"
	case "array":
		return "a JSON array"
	}
	return "a " + f.Type
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// Retry is the prompt for another attempt after a bad answer.
func Retry(prompt string, fields []flowfile.Var, problem error) string {
	return prompt + "\n\nYour previous answer could not be used: " + problem.Error() + ".\n" + Instruction(fields)
}
