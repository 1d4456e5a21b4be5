package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"
)

// ErrEmptyPlan is ParsePlan's error for a document with nothing but
// whitespace and comments in it.
var ErrEmptyPlan = errors.New("the plan is empty: expected a JSON object")

// ParsePlan decodes a plan document strictly: unknown fields and trailing data
// are errors, and every error names the line and column where it happened.
// The document may be JSONC: comments and trailing commas are allowed.
// It does not validate ids or dependencies; ValidatePlan does.
func ParsePlan(data []byte) (*Plan, error) {
	scan, err := checkPlanDocument(data)
	if err != nil {
		return nil, err
	}
	if !scan.content {
		return nil, ErrEmptyPlan
	}
	// hujson turns comments and trailing commas into spaces, byte for byte
	// and keeping every newline, so each offset below (and each line and
	// column of an error) is still the one in the person's text. A document
	// it cannot read that has no comment is left to the JSON decoder, whose
	// errors say more (trailing data, the field of a type error).
	in := bytes.Clone(data)
	if scan.openLine {
		// hujson wants a newline after a // comment, the last one too;
		// appended, it moves no offset before it.
		in = append(in, '\n')
	}
	if std, herr := hujson.Standardize(in); herr == nil {
		data = std[:len(data)]
	} else if scan.comments {
		return nil, errors.New(strings.TrimPrefix(herr.Error(), "hujson: "))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, planSyntaxError(data, dec, err)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		line, col := position(data, len(data)-len(rest))
		return nil, fmt.Errorf("line %d, column %d: unexpected data after the plan object", line, col)
	}
	for i, f := range p.Features {
		if f.Status != "" || f.StartedSeq != 0 || f.Agent != "" || len(f.Validations) > 0 || len(f.Reviews) > 0 || f.Outcome != "" {
			return nil, fmt.Errorf("features[%d] (%s): status, agent, evidence and reviews are set by flowdeck, not by the plan", i, quoteID(f.ID))
		}
	}
	return &p, nil
}

func planSyntaxError(data []byte, dec *json.Decoder, err error) error {
	offset := int(dec.InputOffset())
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		offset = int(syn.Offset)
	case errors.As(err, &typ):
		offset = int(typ.Offset)
	case errors.Is(err, io.EOF):
		return ErrEmptyPlan
	default:
		// An unknown field: the decoder read the whole object before it
		// noticed, so its offset is the object's end. Find the key itself.
		if off, ok := unknownKeyOffset(data); ok {
			offset = off
		}
	}
	line, col := position(data, offset)
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int) (line, col int) {
	if offset > len(data) {
		offset = len(data)
	}
	line = 1 + bytes.Count(data[:offset], []byte{'\n'})
	col = offset - bytes.LastIndexByte(data[:offset], '\n')
	return line, col
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// unknownKeyOffset returns the offset of the first object key in data that
// names no field of the struct the decoder fills there (matching keys as
// encoding/json does, case-insensitively).
func unknownKeyOffset(data []byte) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	off, found, _ := findUnknownKey(dec, data, reflect.TypeFor[Plan]())
	return off, found
}

// findUnknownKey reads one value from dec; t is the Go type it decodes into,
// nil when any key is allowed.
func findUnknownKey(dec *json.Decoder, data []byte, t reflect.Type) (int, bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return 0, false, err
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch tok {
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for dec.More() {
			if off, found, err := findUnknownKey(dec, data, elem); found || err != nil {
				return off, found, err
			}
		}
	case json.Delim('{'):
		strict := t != nil && t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(unmarshalerType)
		for dec.More() {
			start := int(dec.InputOffset())
			for start < len(data) && strings.IndexByte(" \t\r\n,", data[start]) >= 0 {
				start++
			}
			key, err := dec.Token()
			if err != nil {
				return 0, false, err
			}
			var ft reflect.Type
			if strict {
				var ok bool
				if ft, ok = jsonField(t, key.(string)); !ok {
					return start, true, nil
				}
			}
			if off, found, err := findUnknownKey(dec, data, ft); found || err != nil {
				return off, found, err
			}
		}
	default:
		return 0, false, nil
	}
	_, err = dec.Token() // the closing delimiter
	return 0, false, err
}

// jsonField returns the type of the field of struct t that key decodes into.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	var folded reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
		if folded == nil && strings.EqualFold(name, key) {
			folded = f.Type
		}
	}
	return folded, folded != nil
}

// PlanDocument is p as the document ParsePlan reads, indented: the plan's
// own fields and no more (no status, evidence or reviews, which flowdeck
// keeps and a plan may not set), so what a person edits applies as it is.
func PlanDocument(p *Plan) []byte {
	type feature struct {
		ID           string   `json:"id"`
		Title        string   `json:"title"`
		Summary      string   `json:"summary,omitempty"`
		Files        []string `json:"files,omitempty"`
		Verification []string `json:"verification,omitempty"`
		DependsOn    []string `json:"depends_on,omitempty"`
		BlockedBy    []string `json:"blocked_by,omitempty"`
	}
	doc := struct {
		Summary      string      `json:"summary"`
		Overview     string      `json:"overview,omitempty"`
		Requirements []string    `json:"requirements,omitempty"`
		Decisions    []string    `json:"decisions,omitempty"`
		Features     []feature   `json:"features"`
		Completion   *Completion `json:"completion,omitempty"`
		MaxParallel  int         `json:"max_parallel,omitempty"`
		Worktrees    *bool       `json:"worktrees,omitempty"`
	}{Summary: p.Summary, Overview: p.Overview, Requirements: p.Requirements, Decisions: p.Decisions,
		Features: make([]feature, len(p.Features)), MaxParallel: p.MaxParallel, Worktrees: p.Worktrees}
	if p.Completion != (Completion{}) {
		c := p.Completion
		doc.Completion = &c
	}
	for i, f := range p.Features {
		doc.Features[i] = feature{ID: f.ID, Title: f.Title, Summary: f.Summary, Files: f.Files,
			Verification: f.Verification, DependsOn: f.DependsOn, BlockedBy: f.BlockedBy}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // commands hold && and >; the person reads them as written
	_ = enc.Encode(doc)      // strings, slices and ints: it cannot fail
	return b.Bytes()
}
