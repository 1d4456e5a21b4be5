package patterns

import (
	"bytes"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/termtext"
)

// secretFamilies holds one sample of every built-in family (fake values).
// Each must be redacted so that value no longer appears.
var secretFamilies = []struct{ name, line, value string }{
	{"aws", "id AKIAIOSFODNN7EXAMPLE end", "AKIAIOSFODNN7EXAMPLE"},
	{"github", "tok ghp_abcdefghijklmnopqrstuvwxyz0123456789 end", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"gitlab", "tok glpat-AbCdEfGhIjKlMnOpQrSt end", "glpat-AbCdEfGhIjKlMnOpQrSt"},
	{"slack-token", "slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx end", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"slack-webhook", "post https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX end", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"},
	{"jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk end", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
	{"anthropic", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345 end", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345"},
	{"openai", "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123 end", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123"},
	{"stripe-live", "key sk_live_4eC39HqLyjWDarjtT1zdp7dc end", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"stripe-restricted", "key rk_test_4eC39HqLyjWDarjtT1zdp7dc end", "rk_test_4eC39HqLyjWDarjtT1zdp7dc"},
	{"stripe-publishable", "key pk_live_4eC39HqLyjWDarjtT1zdp7dc end", "pk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"secret-key", "SECRET_KEY=django-insecure-x9f2k", "django-insecure-x9f2k"},
	{"token-assign", "export NPM_TOKEN=npm_AbCdEf123456", "npm_AbCdEf123456"},
	{"secret-assign", "CLIENT_SECRET=Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"},
	{"password-assign", "DB_PASSWORD=hunter2xyz", "hunter2xyz"},
	{"json-password", `{"password":"hunter2xyz"}`, "hunter2xyz"},
	{"bearer", "Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef"},
	{"url-password", "postgres://app:s3cretpw@db:5432/app", "s3cretpw"},
}

// variants prints a line the ways a terminal program does: plain,
// coloured, split by SGR inside the secret, and with a C1 CSI (8-bit and
// UTF-8) inside it.
func variants(line, value string) map[string]string {
	mid := len(value) / 2
	split := func(sep string) string {
		return strings.Replace(line, value, value[:mid]+sep+value[mid:], 1)
	}
	return map[string]string{
		"plain":    line,
		"coloured": "\x1b[32m" + strings.Replace(line, value, "\x1b[1;31m"+value+"\x1b[0m", 1) + "\x1b[0m",
		"sgr":      split("\x1b[1m"),
		"osc":      split("\x1b]8;;\x1b\\"),
		"c1":       split("\x9b1m"),
		"c1utf8":   split("\u009b1m"),
		"c1bare":   split("\u009b"),
		"bs":       split("x\b"),
	}
}

func TestRedactVisibleText(t *testing.T) {
	for _, f := range secretFamilies {
		for how, in := range variants(f.line, f.value) {
			r, _ := NewRedactor(nil)
			got := r.Line([]byte(in))
			if bytes.Contains(flatText(nil, got), []byte(f.value)) || bytes.Contains(got, []byte(f.value)) {
				t.Errorf("%s/%s: %q -> %q still shows the secret", f.name, how, in, got)
			}
			if !bytes.Contains(got, []byte(Redacted)) {
				t.Errorf("%s/%s: %q -> %q: nothing redacted", f.name, how, in, got)
			}
		}
	}
}

func TestRedactKeepsColoursWithoutSecrets(t *testing.T) {
	r, _ := NewRedactor(nil)
	for _, s := range []string{"\x1b[32mok\x1b[0m  \tpkg\t0.1s", "\x1b[1mtoken.go:12\x1b[0m: undefined", "50%\r100%\r\n"} {
		if got := string(r.Line([]byte(s))); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
	}
	// A secret hidden inside an escape sequence (a link's URL) is redacted
	// in place; the colours stay.
	in := "\x1b[1m\x1b]8;;https://x/?token=abc123\x1b\\link\x1b]8;;\x1b\\\x1b[0m"
	got := string(r.Line([]byte(in)))
	if strings.Contains(got, "abc123") || !strings.Contains(got, "\x1b[1m") {
		t.Errorf("Line(%q) = %q", in, got)
	}
}

// A secret drawn by overwriting (\r back to the start) is found on what
// the screen shows.
func TestRedactScreenOverwrite(t *testing.T) {
	r, _ := NewRedactor(nil)
	in := "XXXXabcdefghijklmnopqrstuvwxyz0123456789\rghp_"
	got := string(r.Line([]byte(in)))
	if got == in || strings.Contains(string(screenText([]byte(got))), "ghp_abcdef") {
		t.Errorf("Line(%q) = %q", in, got)
	}
}

// Malformed sequences that flowdeck's own renderers (termtext for the CLI,
// StripANSI for show and recall) read otherwise than flatText: each joins
// the key there, so Line must redact it and Clean must not pass it.
func TestRedactWhatRenderersShow(t *testing.T) {
	const key = "AKIAIOSFODNN7EXAMPLE"
	r, err := NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"id AKIAIOSFOD\x1b\t1NN7EXAMPLE end",                    // a tab executed inside ESC
		"id AKIAIOSF\x9d\u201cODNN7EXAMPLE end",                 // raw OSC ended by the ST inside a UTF-8 character
		"id AK\u009d\xc3\u009cIAIOSFODNN7EXAMPLE end",           // OSC in UTF-8 form swallowing a cut character
		"id A\a\bKIAIOSFO\x18DN\x18N7EXAMP\u009b\t\x1b\\LE end", // C1 CSI, a tab, then ST
	} {
		got := r.Line([]byte(line))
		for name, shown := range map[string]string{"termtext": termtext.String(string(got)), "StripANSI": string(StripANSI(got))} {
			if strings.Contains(shown, key) {
				t.Errorf("%q: %s shows the key: %q", line, name, shown)
			}
		}
		if r.Clean([]byte(line)) {
			t.Errorf("%q: Clean passed it", line)
		}
	}
}

func TestNewFamiliesLeaveLookalikes(t *testing.T) {
	r, _ := NewRedactor(nil)
	for _, s := range []string{
		"task-runner finished", "disk-usage-report-for-all-volumes", "eyJ alone", "sk-short",
		"xoxo-hugs", "pk_value_x", "hooks.slack.com is a host", "Desk_live_now",
	} {
		if got := string(r.Line([]byte(s))); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestCleanSeesThroughEscapes(t *testing.T) {
	r, _ := NewRedactor(nil)
	for _, f := range secretFamilies {
		for how, in := range variants(f.line, f.value) {
			if how == "bs" {
				continue
			}
			if r.Clean([]byte("ok\n" + in + "\n")) {
				t.Errorf("%s/%s: Clean(%q) = true", f.name, how, in)
			}
		}
	}
	if !r.Clean([]byte("\x1b[32mok\x1b[0m\tpkg\t0.1s\r\n\x1b[1m--- PASS\x1b[0m\r\n")) {
		t.Error("coloured test output reported as possibly secret")
	}
	if r.Clean([]byte("50%\r100%\n")) {
		t.Error("a line with overwrites must go through Line")
	}
}

func TestRedactArgv(t *testing.T) {
	r, _ := NewRedactor(nil)
	for _, tc := range []struct{ in, want []string }{
		{[]string{"deploy", "--password", "hunter2", "--user", "bob"}, []string{"deploy", "--password", "[REDACTED]", "--user", "bob"}},
		{[]string{"gh", "--token", "abc", "--api-key", "k", "--client-secret", "s"}, []string{"gh", "--token", "[REDACTED]", "--api-key", "[REDACTED]", "--client-secret", "[REDACTED]"}},
		{[]string{"/usr/bin/mysql", "-u", "root", "-p", "pw1", "db"}, []string{"/usr/bin/mysql", "-u", "root", "-p", "[REDACTED]", "db"}},
		{[]string{"mysql", "-psecret1", "db"}, []string{"mysql", "-p[REDACTED]", "db"}},
		{[]string{"sshpass", "-p", "pw", "ssh", "host"}, []string{"sshpass", "-p", "[REDACTED]", "ssh", "host"}},
		{[]string{"curl", "-u", "bob:pw", "https://x"}, []string{"curl", "-u", "bob:[REDACTED]", "https://x"}},
		{[]string{"login", "--password=hunter2"}, []string{"login", "--password=[REDACTED]"}},
		{[]string{"sh", "-c", "mysql -p 'pw 2' db"}, []string{"sh", "-c", "mysql -p '[REDACTED]' db"}},
		// -p means other things to other programs.
		{[]string{"mkdir", "-p", "dir"}, []string{"mkdir", "-p", "dir"}},
		{[]string{"go", "test", "-p", "4", "--run", "TestToken", "./..."}, []string{"go", "test", "-p", "4", "--run", "TestToken", "./..."}},
		{[]string{"echo", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, []string{"echo", "[REDACTED]"}},
	} {
		got := r.Argv(tc.in)
		if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
			t.Errorf("Argv(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	if got := r.Command("./deploy.sh --token abc123 && mysql -p 'x y' db"); got != "./deploy.sh --token [REDACTED] && mysql -p '[REDACTED]' db" {
		t.Errorf("Command: %q", got)
	}
	if got := r.Command("go test ./..."); got != "go test ./..." {
		t.Errorf("Command: %q", got)
	}
}

func BenchmarkCleanColoured(b *testing.B) {
	line := []byte("=== RUN   TestHandler/case_1234\n--- PASS: TestHandler/case_1234 (0.01s)\n\x1b[32mok\x1b[0m  \tgithub.com/acme/app/pkg/web\t0.123s\n")
	text := bytes.Repeat(line, 64<<10/len(line))
	r, _ := NewRedactor(nil)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if !r.Clean(text) {
			b.Fatal("not clean")
		}
	}
}
