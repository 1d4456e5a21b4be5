package flows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
