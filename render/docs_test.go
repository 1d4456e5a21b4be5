package render_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/render"
)

// docsRig drives a session through model.Execute with a fixed clock, one
// minute per action, so rendered docs are the same on every run.
type docsRig struct {
	t     *testing.T
	s     *model.Session
	now   time.Time
	actor string
}

func newDocsRig(t *testing.T) *docsRig {
	return &docsRig{t: t, now: time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC), actor: "ana"}
}

// as sets who performs the following actions.
func (r *docsRig) as(actor string) *docsRig {
	r.actor = actor
	return r
}

func (r *docsRig) do(actions ...model.Action) {
	r.t.Helper()
	for _, a := range actions {
		r.now = r.now.Add(time.Minute)
		s, _, err := model.Execute(r.s, a, model.Context{Now: r.now, Actor: r.actor})
		if err != nil {
			r.t.Fatalf("%s %+v: %v", a.Name(), a, err)
		}
		r.s = s
	}
}

func observed(id, run, cmd, summary string) model.Validate {
	return model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeTargeted,
		Command: cmd, Summary: summary, Source: model.SourceObserved, RunID: run}
}

func reviewed(id string, d model.ReviewDecision, findings ...string) model.ReviewFeature {
	return model.ReviewFeature{Feature: id, Decision: d, Findings: findings}
}

func completed(id, summary string) model.RunComplete {
	return model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted, Summary: summary}
}

// oauthPlan is a realistic seven-feature plan: two roots, a diamond, and a
// blocked_by edge.
func oauthPlan() model.Plan {
	return model.Plan{
		Summary: "Sign in with GitHub: OAuth callback, encrypted token storage, rate-limited login and silent refresh.",
		Overview: "The web app has only password login today.\n" +
			"This plan adds GitHub OAuth next to it; passwords stay until every account is migrated.\n\n" +
			"Tokens never leave the server: the browser gets a session cookie.",
		Requirements: []string{
			"Users sign in with their GitHub account",
			"OAuth tokens are encrypted at rest (AES-GCM, key from the environment)",
			"At most 10 login attempts per minute per IP",
		},
		Decisions: []string{
			"Use golang.org/x/oauth2 rather than a hand-written client",
			"Store tokens in the existing SQLite database",
		},
		Features: []model.Feature{
			{ID: "db-schema", Title: "Token tables and migration",
				Summary:      "Adds the oauth_tokens table and migration 0007.",
				Files:        []string{"migrations/0007_oauth_tokens.sql", "db/tokens.go"},
				Verification: []string{"go test ./db/..."}},
			{ID: "config-loader", Title: "OAuth client configuration",
				Summary:      "Reads the client id, secret and callback URL from the environment.",
				Files:        []string{"config/oauth.go"},
				Verification: []string{"go test ./config/..."}},
			{ID: "token-store", Title: "Encrypted token store",
				Summary:      "Saves and loads tokens, encrypted with AES-GCM.",
				Files:        []string{"auth/store/store.go", "auth/store/crypt.go"},
				Verification: []string{"go test ./auth/store/...", "go vet ./auth/..."},
				DependsOn:    []string{"db-schema", "config-loader"}},
			{ID: "rate-limit", Title: "Login rate limiting",
				Summary:   "Limits login attempts per IP.",
				Files:     []string{"auth/limit.go"},
				DependsOn: []string{"config-loader"}},
			{ID: "oauth-callback", Title: "OAuth callback handler",
				Summary:      "Handles /auth/github/callback: checks state, exchanges the code, stores the token, sets the session cookie.",
				Files:        []string{"auth/callback.go", "auth/callback_test.go"},
				Verification: []string{"go test ./auth/...", "go test -run TestCallback -race ./auth/"},
				DependsOn:    []string{"token-store"}},
			{ID: "session-refresh", Title: "Silent session refresh",
				Summary:   "Refreshes expired tokens in the background.",
				DependsOn: []string{"token-store"}, BlockedBy: []string{"rate-limit"}},
			{ID: "login-ui", Title: "Sign-in button and error pages",
				Files:     []string{"web/templates/login.html"},
				DependsOn: []string{"oauth-callback", "session-refresh"}},
		},
	}
}

// oauthSession plays the plan to a state that shows most of what the docs
// render: completed features with observed and reported evidence, a
// needs_fix review that was fixed, a blocked feature, notes, and the active
// feature validated and awaiting review.
func oauthSession(t *testing.T) *docsRig {
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "oauth-login", Goal: "Add GitHub OAuth login to the web app"},
		model.PlanApply{Plan: oauthPlan()}, model.PlanApprove{})

	r.as("agent").do(model.RunStart{},
		observed("db-schema", "run-0001", "go test ./db/...", "ok  example.com/web/db  0.41s"))
	r.as("reviewer").do(reviewed("db-schema", model.ReviewApproved))
	r.as("agent").do(completed("db-schema", "Migration 0007 adds oauth_tokens."))

	r.do(model.RunStart{Feature: "config-loader"},
		model.Validate{Feature: "config-loader", Status: model.ValidationFailed, Scope: model.ScopeTargeted,
			Command: "go test ./config/...", Summary: "TestLoad: missing OAUTH_CLIENT_SECRET"},
		model.Validate{Feature: "config-loader", Status: model.ValidationPassed, Scope: model.ScopeTargeted,
			Command: "go test ./config/...", Summary: "3 tests passed"})
	r.as("reviewer").do(reviewed("config-loader", model.ReviewApproved, "Document the variable names in the README"))
	r.as("agent").do(completed("config-loader", ""))

	r.do(model.RunStart{Feature: "token-store"},
		observed("token-store", "run-0002", "go test ./auth/store/...", "ok  example.com/web/auth/store  1.20s"))
	r.as("reviewer").do(reviewed("token-store", model.ReviewNeedsFix,
		"Tokens are logged at debug level", "Compare MACs in constant time"))
	r.as("agent").do(observed("token-store", "run-0003", "go test ./auth/store/...", "ok  example.com/web/auth/store  1.18s"),
		observed("token-store", "run-0003b", "go vet ./auth/...", "go vet: no problems"))
	r.as("reviewer").do(reviewed("token-store", model.ReviewApproved))
	r.as("agent").do(completed("token-store", "Tokens are sealed with AES-GCM; no token reaches the logs."))

	r.do(model.RunStart{Feature: "rate-limit"},
		model.RunComplete{Feature: "rate-limit", Outcome: model.OutcomeBlocked,
			Summary: "Needs a decision: Redis or an in-memory limiter?"})
	r.as("ana").do(model.AddNote{Text: "Asked the platform team about Redis; answer expected Monday."})

	r.as("agent").do(model.RunStart{Feature: "oauth-callback"},
		observed("oauth-callback", "run-0004", "go test ./auth/...", "ok  example.com/web/auth  2.03s (12 tests)"),
		observed("oauth-callback", "run-0005", "go test -run TestCallback -race ./auth/", "ok  example.com/web/auth  3.10s (1 test)"),
		model.AddNote{Text: "Callback validated.\nWaiting for a reviewer."})
	return r
}

// goldenFeatureName is the golden file of a feature doc.
func goldenFeatureName(id string) string { return "feature-" + id + ".md" }

func TestDocsGolden(t *testing.T) {
	s := oauthSession(t).s
	assertGolden(t, "index.md", render.RenderIndex(s))
	ids := model.DocFeatureIDs(s)
	if len(ids) != len(s.Plan.Features) {
		t.Fatalf("DocFeatureIDs = %v, want every feature", ids)
	}
	for _, id := range ids {
		assertGolden(t, goldenFeatureName(id), render.RenderFeature(s, s.Plan.Feature(id)))
	}
}

func TestDocsGoldenNeedsFix(t *testing.T) {
	r := oauthSession(t)
	r.as("reviewer").do(reviewed("oauth-callback", model.ReviewNeedsFix,
		"The state parameter is not checked against the cookie"))
	f := r.s.Plan.Feature("oauth-callback")
	if st := model.StateOf(r.s, f); st != model.StateNeedsFix {
		t.Fatalf("state %s, want needs_fix", st)
	}
	assertGolden(t, "feature-oauth-callback-needs-fix.md", render.RenderFeature(r.s, f))
}

func TestDocsGoldenInterrupted(t *testing.T) {
	s := interruptedSession(t)
	f := s.Plan.Feature("rate-limit")
	if st := model.StateOf(s, f); st != model.StateInterrupted {
		t.Fatalf("state %s, want interrupted", st)
	}
	assertGolden(t, "feature-rate-limit-interrupted.md", render.RenderFeature(s, f))
	if idx := render.RenderIndex(s); !strings.Contains(idx, "| interrupted |") {
		t.Errorf("the index does not show rate-limit interrupted:\n%s", idx)
	}
}

func TestDocsGoldenCompleted(t *testing.T) {
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "fix-typo", Goal: "Fix the typo in the README"},
		model.PlanApply{Plan: model.Plan{Summary: "One change.", Features: []model.Feature{{ID: "readme", Title: "README typo"}}}},
		model.PlanApprove{}, model.RunStart{},
		model.Validate{Feature: "readme", Status: model.ValidationPassed, Scope: model.ScopeBroad, Command: "make check"})
	r.as("reviewer").do(reviewed("readme", model.ReviewApproved), model.ReviewFinal{Decision: model.ReviewApproved, Findings: []string{"Ship it"}})
	r.as("ana").do(completed("readme", ""))
	if r.s.Status != model.StatusCompleted {
		t.Fatalf("session is %s", r.s.Status)
	}
	assertGolden(t, "index-completed.md", render.RenderIndex(r.s))
}

func TestDocsWithoutPlan(t *testing.T) {
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "empty", Goal: "Nothing planned yet"})
	got := render.RenderIndex(r.s)
	for _, want := range []string{"# Nothing planned yet", "No plan yet", "`flowdeck flow plan apply FILE`", "**Progress:** no plan yet"} {
		if !strings.Contains(got, want) {
			t.Errorf("index without a plan lacks %q:\n%s", want, got)
		}
	}
	if ids := model.DocFeatureIDs(r.s); len(ids) != 0 {
		t.Errorf("DocFeatureIDs = %v, want none", ids)
	}
	if got := render.RenderIndex(nil); !strings.Contains(got, "No active session") {
		t.Errorf("RenderIndex(nil) = %q", got)
	}
}

func TestDocsProgressWithMinCompleted(t *testing.T) {
	r := newDocsRig(t)
	plan := model.Plan{Summary: "Any two of three.", Completion: model.Completion{MinCompletedFeatures: 2},
		Features: []model.Feature{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}, {ID: "c", Title: "C"}}}
	r.do(model.PlanStart{ID: "pick-two", Goal: "Two of three"}, model.PlanApply{Plan: plan})
	if got, want := render.ProgressText(r.s.Plan), "0/2 features completed (2 of the plan's 3 required)"; got != want {
		t.Errorf("ProgressText = %q, want %q", got, want)
	}
	if !strings.Contains(render.RenderIndex(r.s), "- **Progress:** 0/2 features completed (2 of the plan's 3 required)") {
		t.Errorf("index lacks the progress line")
	}
	plan.Completion.MinCompletedFeatures = 0
	if got, want := render.ProgressText(&plan), "0/3 features completed"; got != want {
		t.Errorf("ProgressText = %q, want %q", got, want)
	}
}

func TestDocsSayWhatOnlyTheEventLogKeeps(t *testing.T) {
	r := oauthSession(t)
	// Lists are cut back when they reach twice their cap; go past that.
	n := 2*model.MaxHistory + 1
	for i := range n {
		r.do(model.AddNote{Text: fmt.Sprintf("note %03d", i)})
	}
	got := render.RenderIndex(r.s)
	more := r.s.NotesTotal - len(r.s.Notes)
	earlier := r.s.Execution.HistoryTotal - len(r.s.Execution.History)
	if more <= 0 || earlier <= 0 {
		t.Fatalf("fixture does not overflow: notes %d/%d, history %d/%d", len(r.s.Notes), r.s.NotesTotal,
			len(r.s.Execution.History), r.s.Execution.HistoryTotal)
	}
	for _, want := range []string{
		fmt.Sprintf("*%d earlier notes are only in the event log.*", more),
		fmt.Sprintf("*%d earlier events are only in the event log.*", earlier),
		fmt.Sprintf("note %03d", n-1), // the newest note is kept
	} {
		if !strings.Contains(got, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if strings.Index(got, fmt.Sprintf("note %03d", n-2)) > strings.Index(got, fmt.Sprintf("note %03d", n-1)) {
		t.Errorf("notes are not oldest first")
	}
}

func TestDocsAreDeterministic(t *testing.T) {
	s := oauthSession(t).s
	// The store keeps the session as JSON; docs rendered from a loaded copy
	// must be byte-for-byte those rendered from the live one.
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var loaded model.Session
	if err := json.Unmarshal(data, &loaded); err != nil {
		t.Fatal(err)
	}
	renders := func(s *model.Session) string {
		out := render.RenderIndex(s)
		for _, id := range model.DocFeatureIDs(s) {
			out += render.RenderFeature(s, s.Plan.Feature(id))
		}
		for _, f := range []string{"ascii", "mermaid", "dot"} {
			d, err := render.Diagram(s, f)
			if err != nil {
				t.Fatal(err)
			}
			out += d
		}
		return out
	}
	first := renders(s)
	for range 5 {
		if renders(s) != first {
			t.Fatal("rendering the same session twice gave different output")
		}
	}
	if renders(&loaded) != first {
		t.Fatal("rendering a JSON round trip of the session gave different output")
	}
}

// hostile is user text that tries every way of breaking out of its place in
// the docs: table pipes (also behind a backslash), line breaks, terminal
// escapes, C1 controls, a bidi override, HTML, entities, a code fence, a
// heading, a list marker and markdown links.
const hostile = "a | b \\| c\nsecond line\r\n\x1b[31mred\x1b[0m \x1b]8;;http://evil\x07link\x1b]8;;\x07 \u009b2J " +
	"<script>alert(1)</script> <img src=x onerror=alert(1)> &lt;b&gt; \u202eevil\u202c\n" +
	"```\n# heading\n- item\n1. one\n[x](javascript:alert(1)) `code` *em* _em_ ~~del~~ \x00\x07\x7f end"

func hostileSession(t *testing.T) *model.Session {
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "hostile", Goal: hostile},
		model.PlanApply{Plan: model.Plan{
			Summary: hostile, Overview: hostile, Requirements: []string{hostile}, Decisions: []string{hostile},
			Features: []model.Feature{
				{ID: "root", Title: hostile, Summary: hostile, Files: []string{hostile}, Verification: []string{hostile, "echo ```"}},
				{ID: "leaf", Title: hostile, DependsOn: []string{"root"}},
			},
		}},
		model.PlanApprove{}, model.RunStart{},
		model.Validate{Feature: "root", Status: model.ValidationPassed, Scope: model.ScopeTargeted,
			Command: hostile, Summary: hostile, RunID: hostile},
		model.Validate{Feature: "root", Status: model.ValidationPassed, Scope: model.ScopeTargeted,
			Command: "echo ```", Summary: hostile},
		model.ReviewFeature{Feature: "root", Decision: model.ReviewApproved, Findings: []string{hostile}},
		completed("root", hostile),
		model.RunStart{},
		model.Validate{Feature: "leaf", Status: model.ValidationFailed, Scope: model.ScopeBroad,
			Command: "go test ./... | grep -v 'a\\|b'", Summary: hostile},
		model.ReviewFinal{Decision: model.ReviewNeedsFix, Findings: []string{hostile}},
		model.AddNote{Text: hostile})
	return withActor(t, r.s, hostile)
}

// withActor is s with every recorded actor replaced by actor: an actor
// flowdeck refuses today may be stored by an older one, and is still
// shown.
func withActor(t *testing.T, s *model.Session, actor string) *model.Session {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(actor)
	if !bytes.Contains(data, []byte(`"actor":"ana"`)) {
		t.Fatal("no recorded actor to replace: the session's JSON changed")
	}
	data = bytes.ReplaceAll(data, []byte(`"actor":"ana"`), append([]byte(`"actor":`), quoted...))
	var out model.Session
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestDocsEscapeHostileText(t *testing.T) {
	s := hostileSession(t)
	docs := map[string]string{"index.md": render.RenderIndex(s)}
	for _, id := range model.DocFeatureIDs(s) {
		docs[id+".md"] = render.RenderFeature(s, s.Plan.Feature(id))
	}
	for _, name := range []string{"index.md", "root.md", "leaf.md"} {
		doc := docs[name]
		checkNoControls(t, name, doc)
		// Code spans and blocks show their text verbatim, so they may hold
		// "<script>"; everywhere else it must be escaped.
		prose := strings.ToLower(stripCode(doc))
		for _, bad := range []string{"<script", "<img", "[x](javascript"} {
			if strings.Contains(prose, bad) {
				t.Errorf("%s contains %q outside code", name, bad)
			}
		}
		if strings.Contains(doc, "\u202e") {
			t.Errorf("%s keeps a bidi override", name)
		}
		checkTables(t, name, doc)
		checkBlocks(t, name, doc)
		if strings.Contains(doc, "[31m") || strings.Contains(doc, "8;;") {
			t.Errorf("%s keeps the remains of an escape sequence", name)
		}
		if !strings.Contains(doc, "red") || !strings.Contains(doc, "&lt;script&gt;") && !strings.Contains(doc, "&lt;script>") {
			t.Errorf("%s lost the visible part of the hostile text", name)
		}
	}
}

// stripCode removes fenced code blocks and code spans from doc, reading
// backslash escapes and backtick runs the way CommonMark does.
func stripCode(doc string) string {
	var prose []string
	fence := ""
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case fence != "":
			if l == fence {
				fence = ""
			}
			continue
		case strings.HasPrefix(l, "```"):
			fence = strings.TrimRight(l, "abcdefghijklmnopqrstuvwxyz")
			continue
		}
		prose = append(prose, l)
	}
	text := strings.Join(prose, "\n")
	var b strings.Builder
	run := func(i int) int {
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(text); {
		switch {
		case text[i] == '\\' && i+1 < len(text):
			b.WriteString(text[i : i+2])
			i += 2
		case text[i] == '`':
			n := run(i)
			end := -1
			for j := i + n; j < len(text); {
				if text[j] != '`' {
					j++
					continue
				}
				m := run(j)
				if m == n {
					end = j + m
					break
				}
				j += m
			}
			if end < 0 {
				b.WriteString(text[i : i+n])
				i += n
			} else {
				b.WriteString("CODE")
				i = end
			}
		default:
			b.WriteByte(text[i])
			i++
		}
	}
	return b.String()
}

// checkNoControls asserts that doc has no control character but newlines.
func checkNoControls(t *testing.T, name, doc string) {
	t.Helper()
	for i, r := range doc {
		if r != '\n' && (unicode.IsControl(r) || r == 0x7f) {
			t.Errorf("%s: control character %U at byte %d: %q", name, r, i, doc[max(0, i-20):min(len(doc), i+20)])
			return
		}
	}
}

// checkTables asserts that every row of every table has as many cells as the
// table's header, splitting cells the way GFM does: a backslash followed by
// ASCII punctuation is an escape, so "\\|" ends a cell and "\|" does not.
func checkTables(t *testing.T, name, doc string) {
	t.Helper()
	lines := strings.Split(doc, "\n")
	want := -1
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		n := gfmCells(l)
		if want < 0 {
			want = n
			continue
		}
		if n != want {
			t.Errorf("%s line %d has %d cells, its table %d: %s", name, i+1, n, want, l)
		}
	}
}

func gfmCells(row string) int {
	pipes := 0
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && isASCIIPunct(row[i+1]):
			i++
		case row[i] == '|':
			pipes++
		}
	}
	return pipes - 1
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && (unicode.IsPunct(rune(c)) || unicode.IsSymbol(rune(c)))
}

var ourHeading = regexp.MustCompile(`^(#{2,3} [A-Z][a-z ]+|# .*)$`)

// checkBlocks asserts that user text opened no block of its own: every
// heading is one of ours (the title is line 3), and the only fences are the
// ones the renderer wrote, which come in pairs.
func checkBlocks(t *testing.T, name, doc string) {
	t.Helper()
	fence := ""
	for i, l := range strings.Split(doc, "\n") {
		if fence != "" {
			if l == fence {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "```"):
			fence = strings.TrimRight(l, "abcdefghijklmnopqrstuvwxyz")
		case strings.HasPrefix(strings.TrimLeft(l, " "), "#"):
			if !ourHeading.MatchString(l) || strings.HasPrefix(l, "# ") && i != 2 {
				t.Errorf("%s line %d is a heading the renderer did not write: %q", name, i+1, l)
			}
		case strings.HasPrefix(strings.TrimLeft(l, " "), "<") && !strings.HasPrefix(l, "<!-- Generated by flowdeck"):
			t.Errorf("%s line %d starts an HTML block: %q", name, i+1, l)
		}
	}
	if fence != "" {
		t.Errorf("%s: fence %q is never closed", name, fence)
	}
}

func TestDocsFeatureLinksStayInsideTheDocs(t *testing.T) {
	s := oauthSession(t).s
	link := regexp.MustCompile(`\]\(([^)]*)\)`)
	check := func(name, doc, prefix string) {
		for _, m := range link.FindAllStringSubmatch(doc, -1) {
			target := strings.TrimPrefix(m[1], prefix)
			if target == "../index.md" && prefix == "" {
				continue
			}
			id, ok := strings.CutSuffix(target, ".md")
			if !ok || !model.ValidFeatureID(id) || s.Plan.Feature(id) == nil {
				t.Errorf("%s links to %q", name, m[1])
			}
		}
	}
	check("index.md", render.RenderIndex(s), "features/")
	for _, id := range model.DocFeatureIDs(s) {
		check(id+".md", render.RenderFeature(s, s.Plan.Feature(id)), "")
	}
}

func TestDocsMarkEvidenceFromBeforeTheRestart(t *testing.T) {
	r := newDocsRig(t)
	r.do(model.PlanStart{ID: "redo", Goal: "Redo"},
		model.PlanApply{Plan: model.Plan{Summary: "s", Features: []model.Feature{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}}}},
		model.PlanApprove{}, model.RunStart{},
		observed("a", "run-1", "go test ./...", ""),
		model.RunComplete{Feature: "a", Outcome: model.OutcomeReplanRequired, Summary: "split it"},
		model.PlanApprove{}, model.RunStart{Feature: "a"})
	f := r.s.Plan.Feature("a")
	got := render.RenderFeature(r.s, f)
	for _, want := range []string{
		"| 5 (old) |",
		fmt.Sprintf("before the feature last started (seq %d) and no longer counts", f.StartedSeq),
		"- **State:** in_progress, the active feature",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("feature doc lacks %q:\n%s", want, got)
		}
	}
}

// A plan over MaxInlineDiagram features gets no inline graph in the index
// (it was most of an action's cost on a large plan), only the pointer to
// `flowdeck diagram`; a plan at the limit still gets one.
func TestIndexDrawsTheGraphInlineOnlyForReadablePlans(t *testing.T) {
	for _, n := range []int{render.MaxInlineDiagram, render.MaxInlineDiagram + 1} {
		p := model.Plan{Summary: "s", Features: make([]model.Feature, n)}
		for i := range p.Features {
			p.Features[i] = model.Feature{ID: fmt.Sprintf("f%d", i), Title: "T"}
		}
		s := &model.Session{ID: "s1", Goal: "g", Plan: &p}
		doc := render.RenderIndex(s)
		inline := strings.Contains(doc, "```mermaid")
		if inline != (n <= render.MaxInlineDiagram) || !inline && !strings.Contains(doc, "`flowdeck diagram --format mermaid`") {
			t.Errorf("%d features: inline graph %v\n%s", n, inline, doc[strings.Index(doc, "## Dependency graph"):][:200])
		}
	}
}

// The docs name the tree each piece of evidence ran against and say that
// only flow status can tell whether it still holds.
func TestDocsNameTheEvidenceTree(t *testing.T) {
	r := newDocsRig(t)
	const tree = "abcdef0123456789abcdef0123456789abcdef01"
	r.do(model.PlanStart{ID: "pinned", Goal: "g"},
		model.PlanApply{Plan: model.Plan{Summary: "s", Features: []model.Feature{{ID: "f", Title: "F"}, {ID: "g", Title: "G"}}}},
		model.PlanApprove{}, model.RunStart{Feature: "f"},
		model.Validate{Feature: "f", Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "make test", Tree: tree})
	doc := render.RenderFeature(r.s, r.s.Plan.Feature("f"))
	if !strings.Contains(doc, "(tree `abcdef012345`)") || !strings.Contains(doc, "`flowdeck flow status` (or `flowdeck diff`) says whether it still holds") {
		t.Fatalf("feature doc:\n%s", doc)
	}
}
