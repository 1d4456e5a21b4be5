package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ParsePlan decodes a plan document strictly: unknown fields and trailing data
// are errors, and every error names the line and column where it happened.
// It does not validate ids or dependencies; ValidatePlan does.
func ParsePlan(data []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, planSyntaxError(data, dec, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		line, col := position(data, int(dec.InputOffset()))
		return nil, fmt.Errorf("line %d, column %d: unexpected data after the plan object", line, col)
	}
	for i, f := range p.Features {
		if f.Status != "" || f.StartedSeq != 0 || len(f.Validations) > 0 || len(f.Reviews) > 0 || f.Outcome != "" {
			return nil, fmt.Errorf("features[%d] (%s): status, evidence and reviews are set by flowdeck, not by the plan", i, quoteID(f.ID))
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
		return errors.New("the plan is empty: expected a JSON object")
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
