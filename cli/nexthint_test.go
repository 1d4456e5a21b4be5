package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Following next_command from the real binary, with its placeholders
// filled in, takes a session from nothing to completed: every hinted
// command is accepted (exit 0) on the way, through a parallel plan with
// observed (flowdeck run) and reported evidence and the final review.
func TestFollowingNextCommandCompletesASession(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`{"summary": "follow the hints", "max_parallel": 2, "features": [
		{"id": "store", "title": "Store", "verification": ["echo ok"]},
		{"id": "api", "title": "API"},
		{"id": "ui", "title": "UI", "depends_on": ["store", "api"], "verification": ["echo ok"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fill := map[string]string{"GOAL": "follow the hints", "FILE": plan, "CMD": "echo ok", "NAME": "w1",
		"approved|needs_fix|blocked": "approved"}
	out, _, _ := flowdeck(t, dir, "--json", "flow", "status")
	var seen []string
	for range 40 {
		var res struct {
			OK      bool   `json:"ok"`
			Next    string `json:"next_command"`
			Session *struct {
				Status string `json:"status"`
			} `json:"session"`
			Error *struct {
				Code     string `json:"code"`
				Recovery struct {
					Next string `json:"next_command"`
				} `json:"recovery"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("after %v: %v\n%s", seen, err, out)
		}
		if res.Session != nil && res.Session.Status == "completed" {
			t.Logf("hinted commands: %q", seen)
			return
		}
		next := res.Next
		if res.Error != nil {
			next = res.Error.Recovery.Next
		}
		if next == "" {
			if len(seen) > 0 && strings.HasPrefix(seen[len(seen)-1], "flowdeck run ") {
				t.Fatalf("the result of %q has no next_command:\n%s", seen[len(seen)-1], out)
			}
			out, _, _ = flowdeck(t, dir, "--json", "flow", "status")
			continue
		}
		words := strings.Fields(next)
		if len(words) < 2 || words[0] != "flowdeck" {
			t.Fatalf("after %v: next_command %q is not a flowdeck command\n%s", seen, next, out)
		}
		for i, w := range words {
			if v, ok := fill[w]; ok {
				words[i] = v
			}
		}
		seen = append(seen, next)
		var errs string
		var code int
		out, errs, code = flowdeck(t, dir, append([]string{"--json"}, words[1:]...)...)
		if code != 0 {
			t.Fatalf("hinted %q refused (exit %d) after %v:\n%s%s", next, code, seen[:len(seen)-1], out, errs)
		}
		if next == "flowdeck flow status" {
			t.Fatalf("the hints stalled on flow status after %v", seen)
		}
	}
	t.Fatalf("40 hinted commands did not complete the session: %v", seen)
}
