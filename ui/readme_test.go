package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/ui/keys"
)

// The README's example config.toml loads without a complaint: every setting
// exists, every value is valid, every [keys] action is known.
func TestREADMEConfigExampleLoads(t *testing.T) {
	raw, err := os.ReadFile("../docs/cockpit.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	i := strings.Index(text, "### Configuration")
	if i < 0 {
		t.Fatal("docs/cockpit.md has no ### Configuration section")
	}
	text = text[i:]
	start := strings.Index(text, "```toml\n")
	end := strings.Index(text[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no toml block under ### Configuration")
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text[start+8:start+8+end]), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, errs := config.Load(path)
	if len(errs) > 0 {
		t.Fatalf("the documented config: %v", errs)
	}
	if _, errs := keys.Default().Rebind(cfg.Keys); len(errs) > 0 {
		t.Fatalf("the README's [keys]: %v", errs)
	}
	if cfg.Actor != "alice" || cfg.Run.Timeout != "30m" || len(cfg.Keys) == 0 {
		t.Fatalf("parsed %+v", cfg)
	}
}

// The frame docs/cockpit.md shows is the cockpit's own: a copy of a golden
// frame, so the docs and the screen cannot drift apart.
func TestDocsFrameIsAGoldenFrame(t *testing.T) {
	doc, err := os.ReadFile("../docs/cockpit.md")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "The cockpit at 80x24, on a session whose `reset-api` is blocked"
	at := strings.Index(string(doc), intro)
	if at < 0 {
		t.Fatal("docs/cockpit.md no longer shows the blocked session's frame")
	}
	rest := string(doc[at:])
	start := strings.Index(rest, "```\n") + 4
	end := strings.Index(rest[start:], "\n```")
	golden, err := os.ReadFile("testdata/TestGoldenFrames/blocked-80x24.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rest[start:start+end], strings.TrimRight(string(golden), "\n"); got != want {
		t.Fatalf("docs/cockpit.md's frame differs from the golden frame; copy it from ui/testdata/TestGoldenFrames/blocked-80x24.golden\n--- docs\n%s\n--- golden\n%s", got, want)
	}
}
