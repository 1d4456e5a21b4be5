package patterns

import (
	"bytes"
	"strings"
	"testing"
)

// Test secrets: well-known documentation examples or obviously fake.
const (
	ghToken = "abcdefghijklmnopqrstuvwxyz0123456789"
	awsID   = "AKIAIOSFODNN7EXAMPLE"
	awsKey  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func TestRedactSecrets(t *testing.T) {
	r, err := NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		// AWS access key ids, any of the documented prefixes.
		{"aws_access_key_id = " + awsID, "aws_access_key_id = [REDACTED]"},
		{"key ASIAY34FZKBOKMUTVV7A in use", "key [REDACTED] in use"},
		// AWS secret keys in assignments, env, ini, yaml, json.
		{"export AWS_SECRET_ACCESS_KEY=" + awsKey, "export AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{"aws_secret_access_key = " + awsKey, "aws_secret_access_key = [REDACTED]"},
		{`"SecretAccessKey": "` + awsKey + `",`, `"SecretAccessKey": "[REDACTED]",`},
		// GitHub tokens.
		{"GITHUB_TOKEN=ghp_" + ghToken, "GITHUB_TOKEN=[REDACTED]"},
		{"remote: ghp_" + ghToken + " expired", "remote: [REDACTED] expired"},
		{"oauth gho_" + ghToken, "oauth [REDACTED]"},
		{"user-to-server ghu_" + ghToken, "user-to-server [REDACTED]"},
		{"server ghs_" + ghToken, "server [REDACTED]"},
		{"refresh ghr_" + ghToken, "refresh [REDACTED]"},
		{"fine-grained github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "fine-grained [REDACTED]"},
		// GitLab.
		{"CI_JOB glpat-AbCdEfGhIjKlMnOpQrSt used", "CI_JOB [REDACTED] used"},
		// Bearer and basic auth.
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "Authorization: Bearer [REDACTED]"},
		{"curl -H 'authorization: bearer abc123def456ghi'", "curl -H 'authorization: bearer [REDACTED]'"},
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"},
		// Assignments: =, :, quoted, any case; the key stays.
		{"password=hunter2", "password=[REDACTED]"},
		{"PASSWORD: hunter2", "PASSWORD: [REDACTED]"},
		{"DB_PASSWD=x1", "DB_PASSWD=[REDACTED]"},
		{"mysql --pwd=s3cret", "mysql --pwd=[REDACTED]"},
		{`{"password": "hunter2", "user": "bob"}`, `{"password": "[REDACTED]", "user": "bob"}`},
		{"db_password = 'p@ss w0rd'", "db_password = '[REDACTED]'"},
		{"https://x/?token=abc123&user=bob", "https://x/?token=[REDACTED]&user=bob"},
		{"Secret: s3cr3t", "Secret: [REDACTED]"},
		{"client_secret=Zm9vYmFy", "client_secret=[REDACTED]"},
		{"api_key=AIzaSyD-example", "api_key=[REDACTED]"},
		{"API-KEY: xyz789", "API-KEY: [REDACTED]"},
		{"apikey=k1", "apikey=[REDACTED]"},
		{"STRIPE_ACCESS_KEY=sk_test_123", "STRIPE_ACCESS_KEY=[REDACTED]"},
		{"credentials: c1", "credentials: [REDACTED]"},
		{"token: a, secret: b", "token: [REDACTED], secret: [REDACTED]"},
		// Passwords in URLs.
		{"git clone https://bob:pa55w0rd@example.com/repo.git", "git clone https://bob:[REDACTED]@example.com/repo.git"},
		{"postgres://app:s3cret@db:5432/app", "postgres://app:[REDACTED]@db:5432/app"},
	} {
		if got := string(r.Line([]byte(tc.in))); got != tc.want {
			t.Errorf("Line(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactLeavesNonSecrets(t *testing.T) {
	r, _ := NewRedactor(nil)
	for _, s := range []string{
		"ok  \texample.com/demo/token\t0.01s",
		"token.go:12:3: undefined: x",
		"internal/secret/vault.go:40: missing return",
		"--- FAIL: TestPassword (0.00s)",
		"tokens: 5 used",
		"secretary: Alice",
		"if password == nil {",
		"password := os.Getenv(\"PW\")",
		"the password field is required",
		"password:",
		`password=""`,
		"Bearer of bad news",
		"AKIA is a prefix",
		"github.com/foo/bar",
		"ghp_short",
		"-----BEGIN CERTIFICATE-----",
		"https://example.com:8443/path",
		"user@example.com",
		"✓ 142 passed, 0 failed",
		"",
	} {
		if got := string(r.Line([]byte(s))); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestRedactPrivateKeyBlock(t *testing.T) {
	r, _ := NewRedactor(nil)
	in := []string{
		"key follows:",
		"-----BEGIN RSA PRIVATE KEY-----",
		"Proc-Type: 4,ENCRYPTED",
		"",
		"MIIEpAIBAAKCAQEA7bq98ZsVqJjuDM1t0tx6JlVyb3W9zqGGVwqNQTQyk2VfDGVl",
		"c2VjcmV0IGtleSBtYXRlcmlhbA==",
		"-----END RSA PRIVATE KEY-----",
		"after password=x",
		`{"key":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----\n","n":1}`,
		"-----BEGIN PGP PRIVATE KEY BLOCK----- inline material",
		"lQOYBF",
		"tail -----END PGP PRIVATE KEY BLOCK----- done",
		"visible",
	}
	want := []string{
		"key follows:",
		"-----BEGIN RSA PRIVATE KEY-----",
		"[REDACTED]",
		"[REDACTED]",
		"[REDACTED]",
		"[REDACTED]",
		"-----END RSA PRIVATE KEY-----",
		"after password=[REDACTED]",
		`{"key":"-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----\n","n":1}`,
		"-----BEGIN PGP PRIVATE KEY BLOCK-----[REDACTED]",
		"[REDACTED]",
		"[REDACTED]-----END PGP PRIVATE KEY BLOCK----- done",
		"visible",
	}
	for i, l := range in {
		if got := string(r.Line([]byte(l))); got != want[i] {
			t.Errorf("line %d: %q\n got %q\nwant %q", i, l, got, want[i])
		}
	}

	// The state belongs to the stream: a clone starts outside a block.
	r.Line([]byte("-----BEGIN EC PRIVATE KEY-----"))
	if got := string(r.Line([]byte("MHcCAQEE"))); got != Redacted {
		t.Errorf("inside a block: %q", got)
	}
	if got := string(r.Clone().Line([]byte("MHcCAQEE"))); got != "MHcCAQEE" {
		t.Errorf("clone: %q", got)
	}
}

// A BEGIN without END (a truncated dump) stops redacting after
// maxKeyLines, so the rest of a long log stays searchable.
func TestRedactUnterminatedKeyIsBounded(t *testing.T) {
	r, _ := NewRedactor(nil)
	r.Line([]byte("-----BEGIN PRIVATE KEY-----"))
	for i := 0; i < maxKeyLines; i++ {
		if got := string(r.Line([]byte("AAAA"))); got != Redacted {
			t.Fatalf("line %d: %q", i, got)
		}
	}
	if got := string(r.Line([]byte("later output"))); got != "later output" {
		t.Errorf("after the bound: %q", got)
	}
}

func TestRedactUserRegexes(t *testing.T) {
	r, err := NewRedactor([]string{`corp-[0-9a-f]{16}`, `session=(?P<secret>\w+)`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"id corp-0123456789abcdef ok", "id [REDACTED] ok"},
		{"cookie session=abc123; path=/", "cookie session=[REDACTED]; path=/"},
		{"corp-short", "corp-short"},
	} {
		if got := string(r.Line([]byte(tc.in))); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`(unclosed`, `a**`, `x*`} {
		_, err := NewRedactor([]string{`ok`, bad})
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("NewRedactor(%q): err = %v, want one naming the regex", bad, err)
		}
	}
}

// Lines without secrets are returned as they are, without allocating.
func TestRedactNoAllocation(t *testing.T) {
	r, _ := NewRedactor(nil)
	line := []byte("ok  \texample.com/big/pkg12\t0.002s coverage: 81.2% of statements")
	if n := testing.AllocsPerRun(100, func() { r.Line(line) }); n != 0 {
		t.Errorf("%v allocations per clean line", n)
	}
}

func BenchmarkRedactor(b *testing.B) {
	r, _ := NewRedactor(nil)
	log := goTestLog(8 << 20)
	lines := strings.Split(string(log), "\n")
	bl := make([][]byte, len(lines))
	for i, l := range lines {
		bl[i] = []byte(l)
	}
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range bl {
			r.Line(l)
		}
	}
}

func TestCleanAgreesWithLine(t *testing.T) {
	r, _ := NewRedactor(nil)
	clean := []byte("ok  \tgithub.com/acme/app/pkg/web\t0.12s\n=== RUN   TestHandler\n--- PASS: TestHandler (0.00s)\n")
	if !r.Clean(clean) {
		t.Fatal("plain test output reported as possibly secret")
	}
	for _, dirty := range []string{"x\npassword=hunter2\n", "AKIAIOSFODNN7EXAMPLE", "Authorization: Bearer abc.def", "-----BEGIN RSA PRIVATE KEY-----", "ghp_0123456789abcdefghij0123456789abcdef"} {
		if r.Clean([]byte(dirty)) {
			t.Errorf("Clean(%q) = true", dirty)
		}
	}
	// Inside an open key block nothing is clean.
	r.Line([]byte("-----BEGIN OPENSSH PRIVATE KEY-----"))
	if r.Clean(clean) {
		t.Fatal("Clean inside an open private key block")
	}
	withRule, _ := NewRedactor([]string{"internal-[0-9]+"})
	if withRule.Clean(clean) {
		t.Fatal("Clean must not vouch for text when user rules exist")
	}
}

// mayTrigger agrees with candidates on every window that holds a trigger:
// whatever candidates flags in a line, mayTrigger flags in the text.
func TestMayTriggerCoversCandidates(t *testing.T) {
	words := []string{"api", "Access", "AUTH_KEY", "auth-key", "authkey", "Authorization", "bearer", "Credential", "ghp_", "gho_x",
		"github_pat_", "GLPAT-", "passw", "PWD", "private", "Secret", "TOKEN", "://", "AKIAIOSFODNN7EXAMPLE", "ASIA0123456789ABCDEF",
		"plain", "text", "go test", "ok", "a", "", "tok", "sec", "pas"}
	for i := range 5000 {
		var b []byte
		for j := range 1 + i%5 {
			b = append(b, words[(i*7+j*11)%len(words)]...)
			b = append(b, " _-=:/x"[(i+j)%7])
		}
		if (candidates(b) != 0) != mayTrigger(b) {
			t.Fatalf("%q: candidates %d, mayTrigger %v", b, candidates(b), mayTrigger(b))
		}
	}
}

func BenchmarkClean(b *testing.B) {
	line := []byte("--- PASS: TestHandler/case_1234 (0.01s)\nok  \tgithub.com/acme/app/pkg/web\t0.123s\n=== RUN   TestSessionStore/expired\n")
	text := bytes.Repeat(line, 64<<10/len(line))
	r, _ := NewRedactor(nil)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if !r.Clean(text) {
			b.Fatal("not clean")
		}
	}
}
