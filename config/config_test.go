package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A redaction rule that cannot work is an error naming the file, the line
// and the key, kept on Run so that every run refuses to start.
func TestBrokenRedactRuleFailsClosed(t *testing.T) {
	for _, rule := range []string{`(unclosed`, `x*`, `(?i)(secret)?`} {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, []byte("bell = \"off\"\n[run]\nredact = ['ok-[0-9]+', '"+rule+"']\n"), 0o644)
		c, errs := Load(path)
		if c.Run.RedactErr == nil {
			t.Fatalf("%q: no RedactErr (errs %v)", rule, errs)
		}
		msg := c.Run.RedactErr.Error()
		if !strings.Contains(msg, path+":3:") || !strings.Contains(msg, "run.redact") || !strings.Contains(msg, rule) {
			t.Errorf("%q: error %q does not name the file, line, key and rule", rule, msg)
		}
		if len(errs) != 1 || errs[0] != c.Run.RedactErr {
			t.Errorf("%q: errs = %v", rule, errs)
		}
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte("[run]\nredact = ['corp-[0-9a-f]{16}']\n"), 0o644)
	if c, errs := Load(path); c.Run.RedactErr != nil || len(errs) != 0 || len(c.Run.Redact) != 1 {
		t.Fatalf("good rule: %+v %v", c.Run, errs)
	}
}

// [session] max_parallel is read; out of range it names the file and line
// and falls back to the plan's default.
func TestSessionMaxParallel(t *testing.T) {
	for text, want := range map[string]int{
		"[session]\nmax_parallel = 3\n":  3,
		"[session]\nmax_parallel = 64\n": 64,
		"bell = \"off\"\n":               0,
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, []byte(text), 0o644)
		if c, errs := Load(path); c.Session.MaxParallel != want || len(errs) != 0 {
			t.Errorf("%q: max_parallel %d, errors %v", text, c.Session.MaxParallel, errs)
		}
	}
	for _, bad := range []string{"-1", "65"} {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, []byte("bell = \"off\"\n[session]\nmax_parallel = "+bad+"\n"), 0o644)
		c, errs := Load(path)
		if c.Session.MaxParallel != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), path+":3: session.max_parallel") {
			t.Errorf("max_parallel %s: kept %d, errors %v", bad, c.Session.MaxParallel, errs)
		}
	}
}
