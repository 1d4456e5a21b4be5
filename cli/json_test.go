package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// oneError decodes stdout as exactly one {ok:false, error} object.
func oneError(t *testing.T, what, out string) *model.Error {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var res struct {
		OK    *bool        `json:"ok"`
		Error *model.Error `json:"error"`
	}
	if err := dec.Decode(&res); err != nil || res.OK == nil || *res.OK || res.Error == nil || res.Error.Code == "" || res.Error.Message == "" {
		t.Fatalf("%s: stdout %q is not one {ok:false,error} object (%v)", what, out, err)
	}
	if dec.More() {
		t.Fatalf("%s: more than one object on stdout: %q", what, out)
	}
	if !strings.HasPrefix(strings.TrimSpace(out), "{\n  \"ok\": false,\n  \"error\": {") {
		t.Fatalf("%s: the error is not first: %q", what, out)
	}
	return res.Error
}

// Under --json every error is one object on stdout: usage errors (flags,
// arguments, unknown commands), refusals and internal errors alike.
func TestEveryJSONErrorIsOneObject(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"features":[{"id":"a"},{"id":"b","depends_on":["a","a","a"]}]}`), 0o644)
	for _, c := range []struct {
		name string
		args []string
		exit int
		code string
	}{
		{"unknown flag", []string{"--json", "flow", "status", "--bogus"}, ExitUsage, model.CodeInvalidArgument},
		{"unknown command", []string{"--json", "flow", "frobnicate"}, ExitUsage, model.CodeInvalidArgument},
		{"missing flag", []string{"--json", "flow", "run", "complete", "a"}, ExitUsage, model.CodeInvalidArgument},
		{"too many args", []string{"flow", "note", "--json"}, ExitUsage, model.CodeInvalidArgument},
		{"bad plan file", []string{"--json", "flow", "plan", "apply", filepath.Join(dir, "missing.json")}, ExitUsage, model.CodeInvalidArgument},
		{"refusal", []string{"--json", "flow", "plan", "approve"}, ExitRejected, model.CodeNoActiveSession},
	} {
		out, _, code := flowdeck(t, dir, c.args...)
		if code != c.exit {
			t.Errorf("%s: exit %d, want %d", c.name, code, c.exit)
		}
		if e := oneError(t, c.name, out); e.Code != c.code {
			t.Errorf("%s: code %s, want %s", c.name, e.Code, c.code)
		}
	}
	// A duplicate dependency is refused naming it.
	flowdeck(t, dir, "flow", "plan", "start", "dups")
	out, _, code := flowdeck(t, dir, "--json", "flow", "plan", "apply", filepath.Join(dir, "bad.json"))
	if e := oneError(t, "duplicate dependency", out); code != ExitRejected || e.Code != model.CodePlanDuplicateDependency || !strings.Contains(e.Message, "b -> a") {
		t.Fatalf("duplicate dependency: exit %d, %+v", code, e)
	}
}

// Flow's session habits through the real binary: the same goal continues,
// another goal archives and starts anew, resetting nothing is fine; recall
// finding nothing is an answer (exit 0).
func TestSessionHabitsAndRecall(t *testing.T) {
	dir := t.TempDir()
	type result struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
		Events []struct {
			Type, Session, Summary string
		} `json:"events"`
	}
	run := func(args ...string) result {
		t.Helper()
		out, errs, code := flowdeck(t, dir, append([]string{"--json"}, args...)...)
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.OK {
			t.Fatalf("%v: exit %d, %s %s", args, code, out, errs)
		}
		return r
	}
	if r := run("flow", "reset", "session"); !strings.Contains(r.Message, "nothing to reset") {
		t.Fatalf("reset with no session: %+v", r)
	}
	first := run("flow", "plan", "start", "ship", "the", "thing").Session.ID
	if r := run("flow", "plan", "start", "Ship the  thing"); r.Session.ID != first || len(r.Events) != 0 || r.Message == "" {
		t.Fatalf("same goal: %+v", r)
	}
	r := run("flow", "plan", "start", "something", "else")
	if r.Session.ID == first || len(r.Events) != 2 || r.Events[0].Type != string(model.EventSessionArchived) || r.Events[0].Session != first {
		t.Fatalf("another goal: %+v", r)
	}
	out, _, _ := flowdeck(t, dir, "flow", "history")
	if !strings.Contains(out, first) || !strings.Contains(out, "archived") {
		t.Fatalf("the replaced session is not in history: %s", out)
	}
	if out, _, code := flowdeck(t, dir, "recall", "no-such-text-anywhere"); code != 0 || !strings.Contains(out, "No results found") {
		t.Fatalf("recall with no hits: exit %d, %q", code, out)
	}
	if out, errs, code := flowdeck(t, dir, "flow", "verify"); code != 0 {
		t.Fatalf("verify: %s %s", out, errs)
	}
}
