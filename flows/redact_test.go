package flows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// What an exec block prints becomes flow variables (mode=store) and
// events (mode=stdout), both stored: secrets in it are redacted, coloured
// or not, and never reach the database.
func TestExecOutputIsRedactedBeforeItIsStored(t *testing.T) {
	e, _ := project(t, nil)
	// The blocks print files, so that the secrets are not in their code.
	os.WriteFile(filepath.Join(e.Root, "a.json"), []byte("{\"password\": \"\x1b[31mhunter2xyz\x1b[0m\", \"n\": 1}\n"), 0o644)
	os.WriteFile(filepath.Join(e.Root, "b.txt"), []byte("key AKIA\x1b[1mIOSFODNN7EXAMPLE\n"), 0o644)
	run := start(t, e, "---\nliterate: true\n---\n"+
		"```sh {exec mode=store}\ncat a.json\n```\n"+
		"```sh {exec}\ncat b.txt\n```\n")
	if run.Status != model.FlowCompleted {
		t.Fatalf("%s: %s", run.Status, run.Error)
	}
	if run.Vars["password"] != "[REDACTED]" || run.Vars["n"] != float64(1) {
		t.Fatalf("vars: %v", run.Vars)
	}
	events, _ := e.Store.FlowEvents(run.ID, 1, 0)
	stored, _ := json.Marshal(struct {
		V any
		E any
	}{run.Vars, events})
	for _, secret := range []string{"hunter2xyz", "IOSFODNN7EXAMPLE"} {
		if strings.Contains(string(stored), secret) {
			t.Errorf("flow run holds %q: %s", secret, stored)
		}
	}
	raw, err := os.ReadFile(filepath.Join(e.Root, db.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2xyz", "IOSFODNN7EXAMPLE"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the database file holds %q", secret)
		}
	}
}

// The crew's log file gets each agent's and command's live output through
// its line prefix: both arrive there redacted, a secret an agent prints in
// pieces included.
func TestLiveOutputIsRedactedInTheCrewLog(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	os.WriteFile(script, []byte("printf 'agent token ghp_crew0abcdef'; sleep 0.05; printf 'ghijklmnopqrstuvwxyz0123 end\\n'\necho '{\"n\": 1}'\n"), 0o755)
	e, _ := project(t, map[string]config.Agent{"worker": {Command: []string{"sh", script}}})
	logPath := filepath.Join(dir, "crew.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	e.Live = prefixed(&mu, f, "w1")
	os.WriteFile(filepath.Join(e.Root, "c.txt"), []byte("exec SECRET_KEY=crewSecretValue9\n"), 0o644)
	run := start(t, e, "---\nliterate: true\n---\n```yaml {config}\nstep: ask\nagent: worker\nparse:\n  n: number\nnext: show\n```\nHow many?\n\n---\n\n"+
		"```yaml {config}\nstep: show\n```\n```sh {exec}\ncat c.txt\n```\n")
	if run.Status != model.FlowCompleted {
		t.Fatalf("%s: %s", run.Status, run.Error)
	}
	flushLog(e.Live)
	logged, _ := os.ReadFile(logPath)
	if !strings.Contains(string(logged), "[w1] agent token [REDACTED] end") || !strings.Contains(string(logged), "[w1] exec SECRET_KEY=[REDACTED]") {
		t.Errorf("the log does not show the redacted lines:\n%s", logged)
	}
	for _, s := range []string{"ghp_crew0", "crewSecretValue9", "ghijklmnopqrstuvwxyz0123"} {
		if strings.Contains(string(logged), s) {
			t.Errorf("the crew log holds %q:\n%s", s, logged)
		}
	}
}
