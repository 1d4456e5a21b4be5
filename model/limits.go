package model

import (
	"bytes"
	"fmt"
)

// Limits on what an agent can hand flowdeck. Everything an action stores is
// re-marshalled, hashed and rendered on later actions, so an unbounded field
// would make every later action pay for it; the limits are far above any
// real plan or note and fail with a clear code rather than slowly.
const (
	// MaxPlanFeatures bounds a plan's features (plan_too_large).
	MaxPlanFeatures = 10_000
	// MaxPlanBytes bounds a plan document (plan_too_large).
	MaxPlanBytes = 10 << 20
	// MaxTextBytes bounds any single text field: a goal, a note, a summary,
	// a finding, a command, a feature's title or summary (text_too_large).
	MaxTextBytes = 64 << 10
	// MaxJSONDepth bounds the nesting of a plan document (plan_invalid).
	MaxJSONDepth = 32
)

// checkText refuses one over-long text field, naming it.
func checkText(stage, field, text string) *Error {
	if len(text) <= MaxTextBytes {
		return nil
	}
	return refuse(CodeTextTooLarge, stage, fmt.Sprintf("text fields of at most %d KiB", MaxTextBytes>>10),
		"Shorten it, or attach the long text as a file and refer to it.", "",
		"%s is %d bytes; the limit is %d", field, len(text), MaxTextBytes)
}

// checkTexts applies checkText to a list, naming the index at fault.
func checkTexts(stage, field string, texts []string) *Error {
	for i, t := range texts {
		if err := checkText(stage, fmt.Sprintf("%s[%d]", field, i), t); err != nil {
			return err
		}
	}
	return nil
}

// checkActionText refuses an action carrying an over-long text field before
// anything else looks at it.
func checkActionText(a Action) error {
	var err *Error
	switch a := a.(type) {
	case PlanStart:
		err = checkText("start", "goal", a.Goal)
	case Validate:
		err = first(checkText("validation", "command", a.Command), checkText("validation", "summary", a.Summary))
	case ReviewFeature:
		err = checkTexts("review", "findings", a.Findings)
	case ReviewFinal:
		err = checkTexts("review", "findings", a.Findings)
	case RunComplete:
		err = checkText("execution", "summary", a.Summary)
	case RunInterrupt:
		err = checkText("execution", "summary", a.Summary)
	case AddNote:
		err = checkText("note", "text", a.Text)
	case RecordConflict:
		err = checkTexts("execution", "files", a.Files)
	case PlanApply:
		return checkPlanSize(&a.Plan)
	}
	if err != nil {
		return err
	}
	return nil // a nil *Error is not a nil error
}

// checkPlanSize refuses a plan with too many features or an over-long field.
func checkPlanSize(p *Plan) error {
	const stage = "planning"
	if n := len(p.Features); n > MaxPlanFeatures {
		return refuse(CodePlanTooLarge, stage, fmt.Sprintf("at most %d features", MaxPlanFeatures),
			"Split the work into several sessions, or group small features.", "flowdeck flow plan apply FILE",
			"the plan has %d features; the limit is %d", n, MaxPlanFeatures)
	}
	err := first(checkText(stage, "summary", p.Summary), checkText(stage, "overview", p.Overview),
		checkTexts(stage, "requirements", p.Requirements), checkTexts(stage, "decisions", p.Decisions))
	for i := 0; err == nil && i < len(p.Features); i++ {
		f := &p.Features[i]
		at := fmt.Sprintf("features[%d] (%s).", i, quoteID(f.ID))
		err = first(checkText(stage, at+"title", f.Title), checkText(stage, at+"summary", f.Summary),
			checkTexts(stage, at+"files", f.Files), checkTexts(stage, at+"verification", f.Verification))
	}
	if err != nil {
		return err
	}
	return nil
}

func first(errs ...*Error) *Error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkPlanDocument refuses a plan document that is too large or nested too
// deeply, before it is decoded: decoding is where a hostile document costs
// memory and time. The document is JSONC (comments skipped); what the scan
// found is handed back to ParsePlan.
func checkPlanDocument(data []byte) (jsonScan, error) {
	if len(data) > MaxPlanBytes {
		return jsonScan{}, refuse(CodePlanTooLarge, "planning", fmt.Sprintf("a plan document of at most %d MiB", MaxPlanBytes>>20),
			"Split the work into several sessions, or shorten the plan's texts.", "flowdeck flow plan apply FILE",
			"the plan is over %d bytes (the limit)", MaxPlanBytes)
	}
	s := scanJSON(data, MaxJSONDepth, true)
	if s.deep >= 0 {
		line, col := position(data, s.deep)
		return s, fmt.Errorf("line %d, column %d: nested deeper than %d levels", line, col, MaxJSONDepth)
	}
	return s, nil
}

// NestingBeyond returns the offset of the first '{' or '[' of data nested
// deeper than limit, or -1. Strings are skipped; data need not be valid
// JSON, so it can guard a decoder against hostile nesting.
func NestingBeyond(data []byte, limit int) int { return scanJSON(data, limit, false).deep }

// jsonScan is what scanJSON found in a document.
type jsonScan struct {
	deep     int  // the offset of the first '{' or '[' nested deeper than the limit, or -1
	comments bool // a comment outside strings (jsonc only)
	content  bool // anything but whitespace and comments
	// openLine: data ends inside a // comment, with no newline after it.
	openLine bool
}

// scanJSON walks data as JSON text without decoding it. With jsonc it reads
// comments as hujson does (// to the end of the line, /* to */) and skips
// them: a bracket in a comment must neither count nor cancel one that the
// parser will recurse into.
func scanJSON(data []byte, limit int, jsonc bool) jsonScan {
	s := jsonScan{deep: -1}
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case jsonc && c == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*'):
			s.comments = true
			end := "\n"
			if data[i+1] == '*' {
				end = "*/"
			}
			n := bytes.Index(data[i+2:], []byte(end))
			if n < 0 {
				s.openLine = end == "\n"
				return s // the comment runs to the end
			}
			i += 2 + n + len(end) - 1
			continue
		}
		s.content = true
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				s.deep = i
				return s
			}
		case '}', ']':
			depth--
		}
	}
	return s
}

// TooLarge says whether err is one of the size limits above, so a front-end
// can pass it on as a refusal rather than a usage error.
func TooLarge(err error) bool {
	e, ok := AsError(err)
	return ok && (e.Code == CodePlanTooLarge || e.Code == CodeTextTooLarge)
}
