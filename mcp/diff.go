package mcp

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/termtext"
)

// maxDiffBytes bounds the patch a tool or resource returns: a reviewer's
// context is finite; the files left out are listed with their counts.
const maxDiffBytes = 64 << 10

// diffArgs are the diff tool's arguments: the CLI's FEATURE and --session.
type diffArgs struct {
	agent
	FeatureID string `json:"feature_id,omitempty" jsonschema:"the feature whose change to show; omitted: the active one"`
	Session   bool   `json:"session,omitempty" jsonschema:"the session's whole change instead of one feature's"`
	MaxBytes  int    `json:"max_bytes,omitempty" jsonschema:"bound on the patch in bytes (default 65536): whole files are kept while they fit, the others listed in omitted"`
}

const (
	diffURI       = "flowdeck://session/diff"
	diffFeatureAt = "flowdeck://session/diff/"
)

// addDiff registers the diff tool and the diff resources: the same object
// flowdeck diff --json prints (ops.DiffResult), the patch bounded.
func (s *server) addDiff() {
	addTool(s, "diff", "The change a feature made (from its base to the tree its latest validation ran against, or to the code now) or the session's whole change, as a unified diff with each file's added and removed lines. Review this, not git log.", true,
		func(ctx context.Context, req *sdk.CallToolRequest, in diffArgs) (ops.Result, error) {
			if in.FeatureID != "" && in.Session {
				return nil, fmt.Errorf("give feature_id or session, not both")
			}
			limit := in.MaxBytes
			if limit <= 0 {
				limit = maxDiffBytes
			}
			return asResult(s.p.Diff(ops.DiffRequest{Feature: in.FeatureID, Session: in.Session, MaxBytes: limit}))
		})
	s.srv.AddResource(&sdk.Resource{URI: diffURI, Name: "session.diff", Title: "The session's whole change as a unified diff",
		MIMEType: "text/x-diff"}, s.readDiff)
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: diffFeatureAt + "{id}", Name: "feature diff",
		Title: "One feature's change as a unified diff", MIMEType: "text/x-diff"}, s.readDiff)
}

// readDiff reads a diff resource: the patch, then (as diff comments would
// not survive git apply) a trailer naming the files left out.
func (s *server) readDiff(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	r := ops.DiffRequest{MaxBytes: maxDiffBytes, Session: uri == diffURI}
	if !r.Session {
		id, ok := strings.CutPrefix(uri, diffFeatureAt)
		if !ok {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		if id, _ = url.PathUnescape(id); id == "" || strings.ContainsAny(id, "/.") {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		r.Feature = id
	}
	res, err := s.p.Diff(r)
	if err != nil {
		return nil, err
	}
	if !res.OK {
		return nil, fmt.Errorf("%s: %s", res.Error.Code, res.Error.Message)
	}
	text := res.Patch
	if len(res.Omitted) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "\n# %d more files, left out to stay within %d bytes:\n", len(res.Omitted), maxDiffBytes)
		for _, f := range res.Omitted {
			// A path may hold a newline: on one line, it cannot forge diff lines.
			fmt.Fprintf(&b, "#  %s +%d -%d\n", termtext.Line(f.Path), f.Added, f.Removed)
		}
		text += b.String()
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/x-diff", Text: text}}}, nil
}
