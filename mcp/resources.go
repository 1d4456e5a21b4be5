package mcp

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/model"
)

// The active session's rendered docs (see db.DocsDir).
const (
	indexURI      = "flowdeck://session/index.md"
	featurePrefix = "flowdeck://session/features/"
	markdown      = "text/markdown"
)

func featureURI(id string) string { return featurePrefix + id + ".md" }

var indexResource = &sdk.Resource{URI: indexURI, Name: "index.md", Title: "The active session: goal, plan, features, history",
	MIMEType: markdown}

func (s *server) addResources() {
	s.srv.AddResource(indexResource, s.readDoc)
	// The template answers reads of any feature's doc; the list of
	// resources is brought up to date before each resources/list.
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: featurePrefix + "{id}.md", Name: "feature doc",
		Title: "One feature: its status, verification, evidence and reviews", MIMEType: markdown}, s.readDoc)
	s.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "resources/list" {
				s.syncFeatureDocs()
			}
			return next(ctx, method, req)
		}
	})
}

// docsChanged tells connected clients that the docs changed: the list gets
// a resource per feature of the active plan, and the index is added again,
// so that the SDK sends notifications/resources/list_changed even when only
// what the docs say changed (a client that listed once at connect lists
// again and sees them).
func (s *server) docsChanged() {
	s.syncFeatureDocs()
	s.srv.AddResource(indexResource, s.readDoc)
}

// syncFeatureDocs lists one resource per feature of the active plan.
func (s *server) syncFeatureDocs() {
	sess, err := s.p.Active()
	if err != nil {
		return // the list keeps what it had; the read reports the error
	}
	want := map[string]string{}
	if sess != nil && sess.Plan != nil {
		for _, f := range sess.Plan.Features {
			want[featureURI(f.ID)] = f.Title
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for uri := range s.docs {
		if _, ok := want[uri]; !ok {
			gone = append(gone, uri)
			delete(s.docs, uri)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
	for uri, title := range want {
		if !s.docs[uri] {
			s.docs[uri] = true
			name := strings.TrimPrefix(uri, featurePrefix)
			s.srv.AddResource(&sdk.Resource{URI: uri, Name: name, Title: title, MIMEType: markdown}, s.readDoc)
		}
	}
}

// readDoc returns a doc of the active session as the last action rendered
// it.
func (s *server) readDoc(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	sess, err := s.p.Active()
	if err != nil {
		return nil, err
	}
	if sess == nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	var rel string
	switch {
	case uri == indexURI:
		rel = "index.md"
	case strings.HasPrefix(uri, featurePrefix) && strings.HasSuffix(uri, ".md"):
		id := strings.TrimSuffix(strings.TrimPrefix(uri, featurePrefix), ".md")
		if !model.ValidFeatureID(id) { // ids are kebab-case: no path leaves the docs
			return nil, sdk.ResourceNotFoundError(uri)
		}
		rel = filepath.Join("features", id+".md")
	default:
		return nil, sdk.ResourceNotFoundError(uri)
	}
	data, err := s.p.ReadDoc(sess.ID, rel) // beneath the project: a doc linked out of it is not read
	if errors.Is(err, fs.ErrNotExist) {
		return nil, sdk.ResourceNotFoundError(uri)
	} else if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: markdown, Text: string(data)}}}, nil
}
