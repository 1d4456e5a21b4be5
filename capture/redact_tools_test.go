package capture

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// Real tools colour what they print in a pty: jq -C and grep --color cut
// a secret from its key with SGR sequences. Nothing of it is stored.
func TestColouringToolsDoNotLeakSecrets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"password":"hunter2xyz","user":"bob"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("DB_PASSWORD=hunter2env\nAPI_TOKEN=tok9876543210\n"), 0o644)
	cases := []struct {
		argv    []string
		secrets []string
	}{
		{[]string{"jq", "-C", ".", "c.json"}, []string{"hunter2xyz"}},
		{[]string{"grep", "--color=always", "-E", "PASSWORD|TOKEN", ".env"}, []string{"hunter2env", "tok9876543210"}},
		{[]string{"grep", "--color=always", "-E", "hunter|tok", ".env"}, []string{"hunter2env", "tok9876543210"}},
	}
	st := newStore(t)
	for _, c := range cases {
		if _, err := exec.LookPath(c.argv[0]); err != nil {
			t.Logf("skipping %s: not on PATH", c.argv[0])
			continue
		}
		res, err := Run(context.Background(), st, Options{Argv: c.argv, Dir: dir, NoIsolation: true})
		if err != nil {
			t.Fatal(err)
		}
		stored := string(output(t, st, res.Run.ID))
		if !strings.Contains(stored, "[REDACTED]") {
			t.Errorf("%v: nothing redacted: %q", c.argv, stored)
		}
		for _, s := range c.secrets {
			if strings.Contains(stored, s[:6]) && strings.Contains(stored, s[6:]) {
				t.Errorf("%v: stored output holds the pieces of %q: %q", c.argv, s, stored)
			}
			if hits, _ := st.Recall(model.RecallQuery{Query: s}); len(hits) > 0 {
				t.Errorf("%v: recall %q finds %q", c.argv, s, hits[0].Text)
			}
		}
	}
}
