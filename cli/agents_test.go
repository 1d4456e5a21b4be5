package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"flowdeck/db"
)

func TestHUDCommand(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "hud", "goal")
	out, _, code := flowdeck(t, dir, "hud")
	if code != 0 || out != "flowdeck: hud goal\nstatus: planning, no plan yet\nnext: flowdeck flow plan apply FILE\n" {
		t.Fatalf("hud: exit %d\n%s", code, out)
	}
	var h struct {
		OK   bool   `json:"ok"`
		Goal string `json:"goal"`
		Next string `json:"next_command"`
	}
	for _, args := range [][]string{{"hud", "--format", "json"}, {"--json", "hud"}} {
		out, _, _ = flowdeck(t, dir, args...)
		if err := json.Unmarshal([]byte(out), &h); err != nil || !h.OK || h.Goal != "hud goal" || h.Next != "flowdeck flow plan apply FILE" {
			t.Fatalf("%v: %s (%v)", args, out, err)
		}
	}
	if _, errs, code := flowdeck(t, dir, "hud", "--format", "html"); code != ExitUsage || !strings.Contains(errs, "html") {
		t.Fatalf("bad format: exit %d %s", code, errs)
	}
}

// init writes nothing with --dry-run, and a second run changes nothing.
func TestInitCommand(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	out, _, code := flowdeck(t, dir, "init", "--agent", "claude", "--dry-run")
	if code != 0 || !strings.Contains(out, "+++ b/.mcp.json") || !strings.Contains(out, "mkdir .flow/") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".mcp.json")); err == nil {
		t.Fatal("--dry-run wrote .mcp.json")
	}
	out, errs, code := flowdeck(t, dir, "init", "--agent", "claude")
	if code != 0 || !strings.Contains(out, "created .claude/settings.json") {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	// Plugging the server in says what its run tool can do, and how to
	// allow only the flow_* tools.
	if !strings.Contains(errs, "run tool that executes any command") || !strings.Contains(errs, `"mcp__flowdeck__flow_*"`) || !strings.Contains(errs, `"flowdeck_run": false`) {
		t.Fatalf("init says nothing about the run tool: %s", errs)
	}
	out, _, code = flowdeck(t, dir, "--json", "init")
	var res struct {
		Agents  []string `json:"agents"`
		Changed []string `json:"changed"`
		Notes   []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Changed) != 0 || !slices.Equal(res.Agents, []string{"claude", "generic"}) ||
		!strings.Contains(strings.Join(res.Notes, " "), "mcp__flowdeck__flow_*") {
		t.Fatalf("second init: %s", out)
	}
	if _, errs, code := flowdeck(t, dir, "init", "--agent", "cursor"); code != ExitUsage || !strings.Contains(errs, "cursor") {
		t.Fatalf("unknown agent: exit %d %s", code, errs)
	}
}

func TestAgentEventCommand(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "agent-event", "idle", "--agent", "opencode"); code != 0 {
		t.Fatal(errs)
	}
	if _, _, code := flowdeck(t, dir, "agent-event", "Idle Now"); code != ExitUsage {
		t.Fatalf("bad event name: exit %d", code)
	}
	st, _ := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	evs, err := st.AgentEvents()
	if err != nil || len(evs) != 1 || evs[0].Agent != "opencode" || evs[0].Event != "idle" || time.Since(evs[0].At) > time.Minute {
		t.Fatalf("agent events = %+v, %v", evs, err)
	}
}

// BenchmarkHUD runs `flowdeck hud` as a process (start to exit) on a project
// with 100,000 events and reports the median. Target: under 20 ms.
func BenchmarkHUD(b *testing.B) {
	dir := b.TempDir()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.SeedLog(100_000, time.Now()); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if out, errs, code := flowdeck(b, dir, "hud"); code != 0 || !strings.Contains(out, "next: ") {
			b.Fatalf("hud: exit %d %s %s", code, out, errs)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(ms(times[len(times)/2]), "median-ms")
	b.ReportMetric(ms(times[len(times)*9/10]), "p90-ms")
}
