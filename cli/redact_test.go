package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/klauspost/compress/zstd"

	"github.com/flowdeck/flowdeck/db"
)

// redactFamilies: one fake sample of every secret family flowdeck knows.
var redactFamilies = []struct{ name, line, value string }{
	{"aws", "id AKIAIOSFODNN7EXAMPLE end", "AKIAIOSFODNN7EXAMPLE"},
	{"github", "tok ghp_abcdefghijklmnopqrstuvwxyz0123456789 end", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"gitlab", "tok glpat-AbCdEfGhIjKlMnOpQrSt end", "glpat-AbCdEfGhIjKlMnOpQrSt"},
	{"slack-token", "slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx end", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"slack-webhook", "post https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX end", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
	{"jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk end", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
	{"anthropic", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345 end", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345"},
	{"openai", "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123 end", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123"},
	{"stripe", "key sk_live_4eC39HqLyjWDarjtT1zdp7dc end", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"stripe-restricted", "key rk_test_5fD40IrMzkXEbskuU2aeq8ed end", "rk_test_5fD40IrMzkXEbskuU2aeq8ed"},
	{"secret-key", "SECRET_KEY=django-insecure-x9f2kq7", "django-insecure-x9f2kq7"},
	{"token-assign", "export NPM_TOKEN=npmAbCdEf123456", "npmAbCdEf123456"},
	{"secret-assign", "CLIENT_SECRET=Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"},
	{"password-assign", "DB_PASSWORD=hunter2xyz", "hunter2xyz"},
	{"json-password", `{"password":"pw4jsonXYZ"}`, "pw4jsonXYZ"},
	{"bearer", "Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef"},
	{"url-password", "postgres://app:s3cretpwURL@db:5432/app", "s3cretpwURL"},
	{"private-key", "-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAkeyMaterial -----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAkeyMaterial"},
}

// TestRedactionMatrixThroughTheBinary prints every family plainly,
// coloured, split by SGR and split across two writes, through the real
// `flowdeck run` (with the value as a --token argument too), then checks
// what a reader gets back from show, show --raw, recall and runs --json,
// and the database file itself, output chunks decompressed.
func TestRedactionMatrixThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for i, f := range redactFamilies {
		mid := len(f.value) / 2
		before, after, _ := strings.Cut(f.line, f.value)
		first := f.line + "\n" + // plain
			"\x1b[32m" + before + "\x1b[1;31m" + f.value + "\x1b[0m" + after + "\x1b[0m\n" + // coloured
			before + f.value[:mid] + "\x1b[1m" + f.value[mid:] + after + "\n" + // split by SGR
			before + f.value[:mid] // split across two writes
		second := f.value[mid:] + after + "\n"
		a, b := filepath.Join(dir, f.name+".1"), filepath.Join(dir, f.name+".2")
		os.WriteFile(a, []byte(first), 0o644)
		os.WriteFile(b, []byte(second), 0o644)
		// The pause makes two pty reads likely; the result must not depend on it.
		out, errs, code := flowdeck(t, dir, "--json", "run", "--", "sh", "-c", `cat "$1"; sleep 0.05; cat "$2"`, "sh", a, b, "--token", f.value)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f.name, code, errs)
		}
		var res struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.RunID == "" {
			t.Fatalf("%s: run result %q: %v", f.name, out, err)
		}
		ids = append(ids, res.RunID)
		mustHide(t, f.name+": run --json", out, f.value)
		shown, _, _ := flowdeck(t, dir, "show", res.RunID)
		mustHide(t, f.name+": show", shown, f.value)
		if n := strings.Count(shown, "[REDACTED]"); n < 4 {
			t.Errorf("%s: show has %d [REDACTED], want 4:\n%s", f.name, n, shown)
		}
		raw, _, _ := flowdeck(t, dir, "show", "--raw", res.RunID)
		mustHide(t, f.name+": show --raw", raw, f.value)
		recalled, _, _ := flowdeck(t, dir, "recall", f.value)
		mustHide(t, f.name+": recall", recalled, f.value)
		if i == 0 {
			if hit, _, _ := flowdeck(t, dir, "recall", "id end"); !strings.Contains(hit, "[REDACTED]") {
				t.Errorf("recall of the redacted line: %q", hit)
			}
		}
	}
	runs, _, _ := flowdeck(t, dir, "--json", "runs", "--limit", "100")
	for _, f := range redactFamilies {
		mustHide(t, f.name+": runs --json", runs, f.value)
	}
	if c := strings.Count(runs, `"[REDACTED]"`); c < len(ids) {
		t.Errorf("runs --json: %d argv values redacted, want %d", c, len(ids))
	}
	for _, f := range redactFamilies {
		if scanDatabase(t, dir, f.value) == 0 {
			t.Fatal("no compressed output chunk found to scan")
		}
	}
}

// mustHide fails when text shows value, as it is or once escape sequences
// are removed.
func mustHide(t *testing.T, what, text, value string) {
	t.Helper()
	if strings.Contains(text, value) || strings.Contains(ansi.Strip(text), value) {
		t.Errorf("%s shows the secret %q:\n%s", what, value, text)
	}
}

// scanDatabase fails when the database file holds value in any case, in
// its bytes or inside any zstd frame in it (the output chunks). It returns
// how many frames it decompressed.
func scanDatabase(t *testing.T, dir, value string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, db.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	lower := bytes.ToLower([]byte(value))
	if bytes.Contains(bytes.ToLower(data), lower) {
		t.Errorf("the database file holds %q", value)
	}
	magic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	frames := 0
	for off := 0; ; off++ {
		i := bytes.Index(data[off:], magic)
		if i < 0 {
			break
		}
		off += i
		dec, err := zstd.NewReader(bytes.NewReader(data[off:]), zstd.WithDecoderConcurrency(1))
		if err != nil {
			continue
		}
		plain, _ := io.ReadAll(dec) // a frame ends where the page's bytes stop making sense
		dec.Close()
		if len(plain) > 0 {
			frames++
		}
		if bytes.Contains(bytes.ToLower(plain), lower) {
			t.Errorf("a compressed output chunk holds %q", value)
		}
	}
	return frames
}

// Commands are stored as text in evidence too: a run's argv and a reported
// validation's --command lose their secrets before they are stored.
func TestEvidenceCommandsAreRedacted(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"features":[{"id":"a","title":"A","verification":["true"]}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "g"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"}, {"flow", "run", "start", "a"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatal(errs)
		}
	}
	secrets := []string{"pw-argv-1234", "tok-validate-5678", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
	if _, errs, code := flowdeck(t, dir, "run", "--feature", "a", "--", "sh", "-c", "true", "sh", "--password", secrets[0]); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := flowdeck(t, dir, "flow", "validate", "a", "--status", "passed", "--scope", "targeted",
		"--command", "./deploy --token "+secrets[1]+" && echo "+secrets[2], "--summary", "used "+secrets[2]); code != 0 {
		t.Fatal(errs)
	}
	// Why an agent stopped is often its last output: the reason of an
	// interruption is redacted too.
	if _, errs, code := flowdeck(t, dir, "flow", "run", "interrupt", "a", "--summary", "agent died after printing "+secrets[2]); code != 0 {
		t.Fatal(errs)
	}
	status, _, _ := flowdeck(t, dir, "--json", "flow", "status")
	if !strings.Contains(status, "agent died after printing") {
		t.Errorf("status does not show the interruption:\n%s", status)
	}
	if !strings.Contains(status, "--token [REDACTED]") || !strings.Contains(status, "--password") {
		t.Errorf("status does not show the redacted commands:\n%s", status)
	}
	history, _, _ := flowdeck(t, dir, "--json", "flow", "history")
	for _, s := range secrets {
		mustHide(t, "status", status, s)
		mustHide(t, "history", history, s)
		scanDatabase(t, dir, s)
	}
}

// A redaction rule that cannot work stops every run, naming the file, the
// line and the key; nothing runs and nothing is stored.
func TestBrokenRedactRuleStopsRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	env := []string{"FLOWDECK_CONFIG=" + cfg}
	marker := filepath.Join(dir, "ran")
	for _, rule := range []string{`(unclosed`, `.*`} {
		os.WriteFile(cfg, []byte("[run]\nredact = ['"+rule+"']\n"), 0o644)
		_, errs, code := flowdeckEnv(t, dir, env, "run", "--", "touch", marker)
		if code == 0 || !strings.Contains(errs, cfg+":2") || !strings.Contains(errs, "run.redact") || !strings.Contains(errs, rule) {
			t.Errorf("%q: exit %d, stderr %q", rule, code, errs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q: the command ran", rule)
		}
	}
	if runs, _, _ := flowdeck(t, dir, "--json", "runs"); strings.Contains(runs, "touch") {
		t.Errorf("a run was stored: %s", runs)
	}
}

// A verification that ran no test says so and is not passing evidence.
func TestNoTestsRunIsNotPassingEvidence(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: this test runs a real go test")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/nt\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package nt\n\nimport \"testing\"\n\nfunc TestLex(t *testing.T) {}\n"), 0o644)
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"features":[{"id":"lexer","title":"Lexer","verification":["go test -count=1 -run TestNothing ."]}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "g"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"}, {"flow", "run", "start", "lexer"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatal(errs)
		}
	}
	out, errs, code := flowdeck(t, dir, "run", "--feature", "lexer", "--", "sh", "-c", "go test -count=1 -run TestNothing .")
	if code != 0 || !strings.Contains(out, "⚠ go test: no tests ran") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, errs)
	}
	status, _, _ := flowdeck(t, dir, "--json", "flow", "status")
	if !strings.Contains(status, `"status": "partial"`) || strings.Contains(status, `"status": "passed"`) {
		t.Fatalf("evidence of a run of no test:\n%s", status)
	}
}
