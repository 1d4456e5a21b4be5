package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/model"
)

// diffRequestBytes is the patch size the fleet asks a project's diff tool
// for: whole files while they fit, the others listed (the JSON of it stays
// well within MaxMessageBytes).
const diffRequestBytes = 1 << 20

// Review records the person's review of a feature (final: the session's
// final review, feature unused) with expect_seq: the project refuses it
// (stale_decision) if what it decides changed since the person saw it at
// expectSeq. It returns the project's refusal, or an error when the call
// itself failed (an unknown or unreachable project, the transport).
func (f *Fleet) Review(ctx context.Context, project, feature string, final bool, decision string, findings []string, expectSeq uint64) (*model.Error, error) {
	args := map[string]any{"decision": decision, "expect_seq": expectSeq}
	if len(findings) > 0 {
		args["findings"] = findings
	}
	tool := "flow_review_record_final"
	if !final {
		tool = "flow_review_record_feature"
		args["feature_id"] = feature
	}
	return f.act(ctx, project, tool, args)
}

// Resolve answers a flow's pending decision (decision_resolve) with one of
// its options and a note. A decision is answered once: a second answer,
// from here or elsewhere, is the project's refusal.
func (f *Fleet) Resolve(ctx context.Context, project, decisionID, option, note string) (*model.Error, error) {
	args := map[string]any{"decision_id": decisionID}
	if option != "" {
		args["option"] = option
	}
	if note != "" {
		args["note"] = note
	}
	return f.act(ctx, project, "decision_resolve", args)
}

// Diff is the change a feature made as the project's diff tool shows it,
// or with feature "" the session's whole change (what a final review
// decides on): sanitised (newlines and tabs kept, escapes and controls
// gone) and at most MaxDiffBytes. A refusal (no such feature, no change)
// is an error.
func (f *Fleet) Diff(ctx context.Context, project, feature string) (string, error) {
	args := map[string]any{"feature_id": feature, "max_bytes": diffRequestBytes}
	if feature == "" {
		args = map[string]any{"session": true, "max_bytes": diffRequestBytes}
	}
	res, _, err := f.call(ctx, project, "diff", args)
	if err != nil {
		return "", err
	}
	var out struct {
		Patch   string `json:"patch"`
		Omitted []struct {
			Path           string
			Added, Removed int
		} `json:"omitted"`
	}
	if res.IsError {
		me, err := refusal(res)
		if err != nil {
			return "", err
		}
		return "", fmt.Errorf("%s: diff of %s refused: %s: %s", project, line(feature), me.Code, me.Message)
	}
	if err := json.Unmarshal([]byte(resultText(res)), &out); err != nil {
		return "", fmt.Errorf("%s: diff of %s: a malformed answer: %s", project, line(feature), line(err.Error()))
	}
	var b strings.Builder
	b.WriteString(out.Patch)
	if len(out.Omitted) > 0 {
		fmt.Fprintf(&b, "\n# %d more files, left out to stay within %d bytes:\n", len(out.Omitted), diffRequestBytes)
		for i, o := range out.Omitted {
			if i == 1000 {
				fmt.Fprintf(&b, "#  … and %d more\n", len(out.Omitted)-i)
				break
			}
			fmt.Fprintf(&b, "#  %s +%d -%d\n", line(o.Path), o.Added, o.Removed)
		}
	}
	return diffText(b.String()), nil
}

// act calls one of the person's actions and returns the project's refusal;
// the project's glance is refreshed after it, accepted or not.
func (f *Fleet) act(ctx context.Context, project, tool string, args map[string]any) (*model.Error, error) {
	res, m, err := f.call(ctx, project, tool, args)
	if err != nil {
		return nil, err
	}
	m.poke()
	return refusal(res)
}

// call calls tool on project's live connection within CallTimeout. A
// transport failure (not the server's refusal, not the caller's cancel)
// ends the connection, which reconnects: the project shows unreachable with
// the reason meanwhile.
func (f *Fleet) call(ctx context.Context, project, tool string, args map[string]any) (*sdk.CallToolResult, *member, error) {
	m := f.byName[project]
	if m == nil {
		return nil, nil, fmt.Errorf("no project %.80q in the fleet", project)
	}
	f.mu.Lock()
	c, st := m.conn, m.st
	f.mu.Unlock()
	if c == nil {
		why := string(st.Reach)
		if st.Err != "" {
			why += ": " + st.Err
		}
		return nil, nil, fmt.Errorf("%s is %s", project, why)
	}
	cctx, cancel := context.WithTimeout(ctx, f.opts.CallTimeout)
	defer cancel()
	res, err := c.cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if isWire(err) {
			return nil, nil, fmt.Errorf("%s: %s: %s", project, tool, line(err.Error()))
		}
		fail := c.explain(err, tool)
		if ctx.Err() == nil {
			c.breakWith(fail)
		}
		return nil, nil, fmt.Errorf("%s: %s", project, fail.msg)
	}
	if text := resultText(res); len(text) > MaxMessageBytes {
		return nil, nil, fmt.Errorf("%s: %s: an answer of %d bytes refused", project, tool, len(text))
	}
	return res, m, nil
}

// refusal is the project's refusal in a tool result, sanitised; nil when
// it accepted. A refusal is {"ok":false,"error":{code, message, recovery}};
// a failure (storage, a bug) has the same code and message, its hint
// becomes the recovery's.
func refusal(res *sdk.CallToolResult) (*model.Error, error) {
	var out struct {
		OK    bool `json:"ok"`
		Error *struct {
			model.Error
			Hint string `json:"hint"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(resultText(res)), &out); err != nil {
		return nil, errors.New(line("a malformed answer: " + err.Error()))
	}
	if !res.IsError && out.OK {
		return nil, nil
	}
	me := &model.Error{Code: "internal", Message: "refused without saying why"}
	if out.Error != nil {
		me = &out.Error.Error
		if me.Recovery.Hint == "" {
			me.Recovery.Hint = out.Error.Hint
		}
	}
	sanitizeError(me)
	return me, nil
}
