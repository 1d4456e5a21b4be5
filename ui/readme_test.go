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
