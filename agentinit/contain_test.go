package agentinit

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// outsideState records every file under dir, to assert init left it alone.
func outsideState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			m[p] = string(data)
		}
		return err
	})
	return m
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Every file and directory init writes, as a symlink leading out of the
// repository: to a directory, to a file, and dangling. init refuses with
// path_escapes_project naming the link, and writes nothing anywhere.
func TestInitRefusesSymlinksOutOfTheRepository(t *testing.T) {
	links := []struct{ link, kind string }{
		{".flow", "dir"},
		{".claude", "dir"},
		{".opencode", "dir"},
		{".opencode/plugins", "dir"},
		{".mcp.json", "file"},
		{".mcp.json", "dangling"},
		{".claude/settings.json", "file"},
		{"opencode.json", "file"},
		{".opencode/plugins/flowdeck.ts", "dangling"},
		{"AGENTS.md", "file"},
		{"AGENTS.md", "dangling"},
		{".gitignore", "file"},
	}
	for _, l := range links {
		t.Run(l.link+"-"+l.kind, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(outside, "settings.json"), []byte(`{"mine": true}`+"\n"), 0o644)
			target := outside
			switch l.kind {
			case "file":
				target = filepath.Join(outside, "settings.json")
			case "dangling":
				target = filepath.Join(outside, "created-by-init")
			}
			link := filepath.Join(root, filepath.FromSlash(l.link))
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := outsideState(t, outside)
			rootBefore := outsideState(t, root)
			_, err := Prepare(root, Agents)
			f, ok := model.AsFault(err)
			if !ok || f.Code != model.CodePathEscapes || !strings.HasPrefix(f.Path, link) {
				t.Fatalf("Prepare: %v, want %s naming %s", err, model.CodePathEscapes, link)
			}
			if !sameState(before, outsideState(t, outside)) || !sameState(rootBefore, outsideState(t, root)) {
				t.Fatal("files changed although init was refused")
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v %v", fi, err)
			}
		})
	}
}

// Apply resolves again: a link made after Prepare is refused too.
func TestApplyRefusesALinkMadeAfterPrepare(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	p, err := Prepare(root, []string{Claude})
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(root, ".claude"))
	err = Apply(root, p.Changes)
	if f, ok := model.AsFault(err); !ok || f.Code != model.CodePathEscapes {
		t.Fatalf("Apply: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside: %v", entries)
	}
}

// A link whose target is inside the repository: init edits the target and
// the link stays a link.
func TestInitEditsTheTargetOfALinkInsideTheRepository(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs", "agents"), 0o755)
	shared := filepath.Join(root, "docs", "AGENTS.md")
	os.WriteFile(shared, []byte("# Shared instructions\n"), 0o600)
	os.Symlink(shared, filepath.Join(root, "AGENTS.md"))          // absolute, inside
	os.Symlink("docs/agents", filepath.Join(root, ".claude"))     // a directory
	os.Symlink("docs/mcp.json", filepath.Join(root, ".mcp.json")) // dangling, inside
	p := initRepo(t, root, Claude)
	if !strings.Contains(strings.Join(p.Notes, "\n"), "AGENTS.md is a symlink") {
		t.Fatalf("notes: %v", p.Notes)
	}
	for _, link := range []string{"AGENTS.md", ".claude", ".mcp.json"} {
		if fi, err := os.Lstat(filepath.Join(root, link)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v %v", link, fi, err)
		}
	}
	if got := read(t, root, "docs/AGENTS.md"); !strings.HasPrefix(got, "# Shared instructions\n") || !strings.Contains(got, beginMarker) {
		t.Fatalf("the link's target was not edited:\n%s", got)
	}
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if !strings.Contains(read(t, root, "docs/agents/settings.json"), "hud") {
		t.Fatal("settings.json not written through the .claude link")
	}
	if !strings.Contains(read(t, root, "docs/mcp.json"), "mcpServers") {
		t.Fatal("the dangling .mcp.json link's target was not created")
	}
	mustNoop(t, root, Claude)
}

// os.Root refuses an absolute symlink on the way to a file, even one that
// leads inside: init says so rather than writing through it.
func TestAbsoluteDirectoryLinkIsRefused(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs", "agents"), 0o755)
	os.Symlink(filepath.Join(root, "docs", "agents"), filepath.Join(root, ".claude"))
	_, err := Prepare(root, []string{Claude})
	if f, ok := model.AsFault(err); !ok || !strings.Contains(f.Hint, "relative") {
		t.Fatalf("Prepare: %v", err)
	}
}

// CLAUDE.md is only looked at (it tells init that Claude Code is used): a
// link out of the repository there is neither read nor written.
func TestClaudeMDLinkOutIsOnlyDetected(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "CLAUDE.md"), []byte("mine"), 0o644)
	os.Symlink(filepath.Join(outside, "CLAUDE.md"), filepath.Join(root, "CLAUDE.md"))
	initRepo(t, root)
	if data, _ := os.ReadFile(filepath.Join(outside, "CLAUDE.md")); string(data) != "mine" {
		t.Fatalf("CLAUDE.md's target changed: %q", data)
	}
}
