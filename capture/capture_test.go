package capture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
	"github.com/flowdeck/flowdeck/runner"
)

func TestMain(m *testing.M) {
	runner.Reexec() // the isolator re-executes this binary to join cgroups
	os.Exit(m.Run())
}

func newStore(t testing.TB) *db.Store {
	t.Helper()
	st, err := db.Open(filepath.Join(t.TempDir(), ".flow", "flowdeck.db"), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// activeFeature prepares a session whose feature "a" is in progress.
func activeFeature(t *testing.T, st *db.Store) {
	t.Helper()
	for _, a := range []model.Action{
		model.PlanStart{Goal: "capture"},
		model.PlanApply{Plan: model.Plan{Features: []model.Feature{{ID: "a", Title: "A"}}}},
		model.PlanApprove{},
		model.RunStart{},
	} {
		if _, err := st.Do(a, "test", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

func output(t *testing.T, st *db.Store, id string) []byte {
	t.Helper()
	data, _, err := st.ReadOutput(id, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFeatureRunBecomesObservedEvidence(t *testing.T) {
	st := newStore(t)
	activeFeature(t, st)
	res, err := Run(context.Background(), st, Options{Argv: []string{"sh", "-c", "echo all good"}, Feature: "a", Actor: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Evidence
	if ev == nil || ev.Source != model.SourceObserved || ev.Status != model.ValidationPassed || ev.RunID != res.Run.ID ||
		ev.Scope != model.ScopeTargeted || ev.Command != "sh -c 'echo all good'" || ev.Actor != "agent" {
		t.Fatalf("evidence = %+v", ev)
	}
	res, err = Run(context.Background(), st, Options{Argv: []string{"sh", "-c", "echo broken; exit 2"}, Feature: "a", Scope: model.ScopeBroad})
	if err != nil {
		t.Fatal(err)
	}
	if res.Evidence == nil || res.Evidence.Status != model.ValidationFailed || res.Evidence.Scope != model.ScopeBroad || res.Run.ExitCode != 2 {
		t.Fatalf("failing run: evidence %+v, exit %d", res.Evidence, res.Run.ExitCode)
	}
	s, _ := st.Active()
	if got := model.StateOf(s, s.Plan.Feature("a")); got != model.StateNeedsFix {
		t.Fatalf("feature state after failing observed evidence = %s", got)
	}
	if res.Run.Session != s.ID || res.Run.Feature != "a" {
		t.Fatalf("run record not tied to session and feature: %+v", res.Run)
	}
}

func TestPrecheckRefusesBeforeRunning(t *testing.T) {
	st := newStore(t)
	activeFeature(t, st)
	err := Precheck(st, "b", model.ScopeTargeted)
	if e, ok := model.AsError(err); !ok || e.Code != model.CodeUnknownFeature {
		t.Fatalf("precheck for an unknown feature = %v", err)
	}
	if err := Precheck(st, "a", model.ScopeTargeted); err != nil {
		t.Fatalf("precheck for the active feature = %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for the runner's reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func TestSecretsAreRedactedBeforeStorageAndIndex(t *testing.T) {
	st := newStore(t)
	live := &syncBuffer{}
	script := `echo "AWS key AKIAIOSFODNN7EXAMPLE here"; echo "password=hunter2"; ` +
		`echo "-----BEGIN RSA PRIVATE KEY-----"; echo "MIIEowIBAAKCAQEA"; echo "-----END RSA PRIVATE KEY-----"; echo done`
	res, err := Run(context.Background(), st, Options{Argv: []string{"sh", "-c", script}, Live: live})
	if err != nil {
		t.Fatal(err)
	}
	stored := string(output(t, st, res.Run.ID))
	for _, secret := range []string{"AKIAIOSFODNN7EXAMPLE", "hunter2", "MIIEowIBAAKCAQEA"} {
		if strings.Contains(stored, secret) {
			t.Errorf("stored output holds %q:\n%s", secret, stored)
		}
		if hits, _ := st.Recall(model.RecallQuery{Query: secret}); len(hits) > 0 && strings.Contains(hits[0].Text, secret) {
			t.Errorf("index holds %q", secret)
		}
		if strings.Contains(res.Classification.Detail+res.Headline, secret) {
			t.Errorf("classification shows %q", secret)
		}
	}
	if !strings.Contains(stored, "done\n") || !strings.Contains(stored, "[REDACTED]") {
		t.Fatalf("stored output = %q", stored)
	}
	// The person watching live sees what the command printed.
	if !strings.Contains(live.b.String(), "hunter2") {
		t.Fatalf("live view = %q", live.b.String())
	}
}

func TestHostileEscapesStoredRawButIndexedClean(t *testing.T) {
	st := newStore(t)
	script := `printf 'title\033]0;pwned\007 clip\033]52;c;SGVsbG8=\007 \033[2J\033[Hcursor\033[31mred\033[0m\n'`
	res, err := Run(context.Background(), st, Options{Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	raw := output(t, st, res.Run.ID)
	if !bytes.Contains(raw, []byte("\x1b]52;c;")) {
		t.Fatalf("raw output must keep the bytes as written: %q", raw)
	}
	hits, err := st.Recall(model.RecallQuery{Query: "cursor"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("recall = %+v, %v", hits, err)
	}
	if strings.ContainsAny(hits[0].Text, "\x1b\x07") || hits[0].Text != "title clip cursorred" {
		t.Fatalf("indexed text = %q", hits[0].Text)
	}
}

func TestBadInputIsStoredSafely(t *testing.T) {
	st := newStore(t)
	cases := []struct {
		name, script string
		lines        int64
		bytes        int64
	}{
		{"binary", `head -c 65536 /dev/urandom; printf '\377\376\n'`, -1, 65536 + 3},
		{"million-empty-lines", `yes '' | head -n 1000000`, 1_000_000, 1_000_000},
		{"50MB-line", `head -c 52428800 /dev/zero | tr '\0' x`, 1, 50 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(context.Background(), st, Options{Argv: []string{"sh", "-c", c.script}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Run.ExitCode != 0 || res.Run.Bytes != c.bytes || (c.lines >= 0 && res.Run.Lines != c.lines) {
				t.Fatalf("run = exit %d, %d bytes, %d lines", res.Run.ExitCode, res.Run.Bytes, res.Run.Lines)
			}
			if len(res.Classification.Detail) > 64<<10 {
				t.Fatalf("detail of %d bytes: not bounded", len(res.Classification.Detail))
			}
		})
	}
}

// TestWorksOnIsAFeatureID: the feature a run works on comes from a flow's
// variables; text that is not a feature id (a line break, an escape) is
// not recorded, an id is.
func TestWorksOnIsAFeatureID(t *testing.T) {
	st := newStore(t)
	for worksOn, want := range map[string]string{"a": "a", "a\n2026 forged run": "", "\x1b]0;t\a": ""} {
		res, err := Run(context.Background(), st, Options{Argv: []string{"true"}, WorksOn: worksOn})
		if err != nil {
			t.Fatal(err)
		}
		if res.Run.Feature != want {
			t.Errorf("WorksOn %q: recorded feature %q, want %q", worksOn, res.Run.Feature, want)
		}
	}
}

func TestMissingCommandAndDirectory(t *testing.T) {
	st := newStore(t)
	res, err := Run(context.Background(), st, Options{Argv: []string{"no-such-command-xyz"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.ExitCode != 127 || res.Run.Outcome != string(runner.StartFailed) || !strings.Contains(res.Headline, "not found") {
		t.Fatalf("missing command: %+v / %s", res.Run, res.Headline)
	}
	res, err = Run(context.Background(), st, Options{Argv: []string{"true"}, Dir: "/no/such/dir"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.ExitCode == 0 || !strings.Contains(string(output(t, st, res.Run.ID)), "/no/such/dir") {
		t.Fatalf("missing dir: %+v", res.Run)
	}
}

func TestTimeoutIsPartialEvidence(t *testing.T) {
	st := newStore(t)
	activeFeature(t, st)
	res, err := Run(context.Background(), st, Options{Argv: []string{"sleep", "30"}, Feature: "a", Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Outcome != string(runner.TimedOut) || res.Evidence == nil || res.Evidence.Status != model.ValidationPartial {
		t.Fatalf("timeout: run %+v, evidence %+v", res.Run, res.Evidence)
	}
	if !strings.Contains(res.Headline, "timeout") {
		t.Fatalf("headline = %q", res.Headline)
	}
}

// plainText's fast paths agree with patterns.StripANSI.
func TestPlainTextMatchesStripANSI(t *testing.T) {
	pieces := []string{"ok", " ", "\t", "é", "\x1b[32m", "\x1b[0m", "\x1b[1;31;4m", "\x1b[?25l", "\x1b[2K", "\x1b[10;20H",
		"pkg/auth", "\x1b]0;title\x07", "\r", "progress 50%", "\x1b(B", "\xff", "\u009b31m"}
	s := &sink{}
	for seed := range 2000 {
		var b strings.Builder
		for i := range 1 + seed%7 {
			b.WriteString(pieces[(seed*7+i*13)%len(pieces)])
		}
		line := []byte(b.String())
		got := string(s.plainText(line))
		want := strings.TrimRight(string(patterns.StripANSI(line)), "\r")
		if got != want {
			t.Fatalf("plainText(%q) = %q, StripANSI = %q", line, got, want)
		}
	}
}

// A long output mixes buffers that need no redaction (stored as they are)
// with one holding a secret (redacted line by line); the stored bytes, the
// line count and the index's line numbers come out the same either way.
func TestFastAndSlowPathsAgree(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	var want strings.Builder
	for i := 1; i <= 20000; i++ {
		line := fmt.Sprintf("line %05d of a plain build log with \x1b[32mcolour\x1b[0m", i)
		if i == 12345 {
			line = "line 12345 sets password=hunter2 here"
		}
		want.WriteString(line + "\n")
	}
	file := filepath.Join(dir, "out.log")
	os.WriteFile(file, []byte(want.String()), 0o644)
	res, err := Run(context.Background(), st, Options{Argv: []string{"cat", file}})
	if err != nil {
		t.Fatal(err)
	}
	expect := strings.Replace(want.String(), "password=hunter2", "password=[REDACTED]", 1)
	if got := string(output(t, st, res.Run.ID)); got != expect {
		t.Fatalf("stored output differs (%d vs %d bytes)", len(got), len(expect))
	}
	if res.Run.Lines != 20000 {
		t.Fatalf("lines = %d", res.Run.Lines)
	}
	for _, q := range []struct {
		query string
		line  int
		text  string
	}{{"line 17001", 17001, "line 17001 of a plain build log with colour"}, {"line 12345", 12345, "line 12345 sets password=[REDACTED] here"}} {
		hits, _ := st.Recall(model.RecallQuery{Query: q.query, Limit: 1})
		if len(hits) != 1 || hits[0].Line != q.line || hits[0].Text != q.text {
			t.Fatalf("recall %q = %+v", q.query, hits)
		}
	}
}
