package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowdeck/flowdeck/model"
)

// decodeArgs checks a call's arguments against the tool's input schema and
// decodes them into in. Every violation becomes one invalid_argument error
// naming the field, in the same shape as every other refusal, instead of
// the SDK's plain-text error. A plan sent as a JSON string (as some clients
// do) is parsed first.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Schema, resolved *jsonschema.Resolved, in *In) *model.Error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return badArg("", "the arguments must be a JSON object", "")
	}
	if e := unstringPlan(args, schema); e != nil {
		return e
	}
	if e := checkTop(args, schema); e != nil {
		return e
	}
	if err := resolved.Validate(args); err != nil {
		return badArg(fieldOf(err.Error()), "invalid arguments: "+err.Error(), "")
	}
	data, err := json.Marshal(args)
	if err == nil {
		err = json.Unmarshal(data, in)
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		field := ""
		if errors.As(err, &te) {
			field = te.Field
		}
		return badArg(field, "invalid arguments: "+err.Error(), "")
	}
	return nil
}

// unstringPlan replaces a "plan" given as a string with the JSON it holds.
func unstringPlan(args map[string]any, schema *jsonschema.Schema) *model.Error {
	text, ok := args["plan"].(string)
	if p := schema.Properties["plan"]; !ok || p == nil || p.Type != "object" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return badArg("plan", fmt.Sprintf("plan is a string that is not JSON: %v", err), "Send the plan as a JSON object.")
	}
	args["plan"] = v
	return nil
}

// checkTop checks the top-level arguments: unknown names, missing required
// ones, types and allowed values, each named.
func checkTop(args map[string]any, schema *jsonschema.Schema) *model.Error {
	names := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := schema.Properties[k]
		if p == nil {
			return badArg(k, fmt.Sprintf("unknown argument %q", k), "The tool takes: "+strings.Join(names, ", ")+".")
		}
		if want := p.Type; want != "" && !hasType(args[k], want, p.Items) {
			return badArg(k, fmt.Sprintf("%s must be %s, not %s", k, article(want, p.Items), typeName(args[k])), "")
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, args[k]) {
			return badArg(k, fmt.Sprintf("%s must be one of %s, not %v", k, enumText(p.Enum), args[k]), "")
		}
	}
	for _, r := range schema.Required {
		if _, ok := args[r]; !ok {
			return badArg(r, fmt.Sprintf("missing required argument %q", r), "")
		}
	}
	return nil
}

func hasType(v any, want string, items *jsonschema.Schema) bool {
	switch want {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && math.Abs(f) < 1<<53
	case "number":
		_, ok := v.(float64)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		if items != nil && items.Type != "" {
			for _, x := range list {
				if !hasType(x, items.Type, items.Items) {
					return false
				}
			}
		}
		return true
	}
	return true
}

func article(want string, items *jsonschema.Schema) string {
	switch {
	case want == "array" && items != nil && items.Type != "":
		return "an array of " + items.Type + "s"
	case want == "array" || want == "object" || want == "integer":
		return "an " + want
	}
	return "a " + want
}

func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		if v == math.Trunc(v) {
			return "the number " + fmt.Sprint(v)
		}
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func enumText(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

var propertyPath = regexp.MustCompile(`properties/([A-Za-z0-9_]+)`)

// fieldOf finds the top-level argument a schema error is about.
func fieldOf(msg string) string {
	if m := propertyPath.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// badArg is the invalid_argument refusal for field.
func badArg(field, msg, hint string) *model.Error {
	if hint == "" {
		hint = "Fix the argument: the tool's input schema lists the arguments, their types and allowed values."
	}
	return &model.Error{Code: model.CodeInvalidArgument, Message: msg, Field: field, Recovery: model.Recovery{Hint: hint}}
}
