package contain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestResolveLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o644)
	links := map[string]string{
		"rel":      "a/b/f",
		"chain":    "rel",
		"abs":      filepath.Join(root, "a", "b", "f"),
		"dangling": "a/new",
		"up":       "../" + filepath.Base(outside),
		"out":      filepath.Join(outside, "f"),
		"loop":     "loop",
		"a/b/back": "../../rel",
	}
	for name, target := range links {
		os.Symlink(target, filepath.Join(root, name))
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := map[string]string{"rel": "a/b/f", "chain": "a/b/f", "abs": "a/b/f", "dangling": "a/new", "plain": "plain", "a/b/back": "a/b/f"}
	for name, w := range want {
		got, err := ResolveLinks(r, name)
		if err != nil || got != filepath.FromSlash(w) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, w)
		}
	}
	for _, name := range []string{"up", "out"} {
		_, err := ResolveLinks(r, name)
		if f, ok := model.AsFault(err); !ok || f.Code != model.CodePathEscapes || f.Path != filepath.Join(root, name) {
			t.Errorf("%s: %v, want %s", name, err, model.CodePathEscapes)
		}
	}
	if _, err := ResolveLinks(r, "loop"); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("loop: %v", err)
	}
}

func TestCreateTempAndWriteAtomic(t *testing.T) {
	root := t.TempDir()
	r, _ := os.OpenRoot(root)
	defer r.Close()
	f, name, err := CreateTemp(r, ".", "run-*-prompt.md", 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !strings.HasPrefix(name, "run-") || !strings.HasSuffix(name, "-prompt.md") || f.Name() != filepath.Join(root, name) {
		t.Fatalf("temp %q (%s)", name, f.Name())
	}
	if _, _, err := CreateTemp(r, ".", "../x-*", 0o600); err == nil {
		t.Fatal("a pattern with a separator was accepted")
	}
	os.Symlink("target", filepath.Join(root, "link"))
	if err := WriteAtomic(r, "link", []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(filepath.Join(root, "link"))
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Fatalf("WriteAtomic over a link: %v", fi.Mode())
	}
	if _, err := os.Lstat(filepath.Join(root, "target")); !os.IsNotExist(err) {
		t.Fatal("WriteAtomic wrote through the link")
	}
}
