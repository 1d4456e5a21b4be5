package fleetconf

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A fleet saved is the fleet loaded: local and remote entries in order,
// the file private to the user, written whole.
func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "flowdeck", "fleet.toml")
	want := []Entry{
		{Name: "app", Dir: "/srv/app"},
		{Name: "build", Command: []string{"ssh", "-p", "2222", "build", "flowdeck", "--dir", "/srv/x y", "mcp"}},
	}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, want, func(a, b Entry) bool {
		return a.Name == b.Name && a.Dir == b.Dir && slices.Equal(a.Command, b.Command)
	}) {
		t.Fatalf("loaded %+v, saved %+v", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".fleet.toml.*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	// An empty fleet saves and loads as empty; a missing file is empty.
	if err := Save(path, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(path); err != nil || len(got) != 0 {
		t.Fatalf("empty fleet: %v %v", got, err)
	}
	if got, err := Load(filepath.Join(t.TempDir(), "none.toml")); err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
}

// Every problem in a hand-written file is an error naming the file and
// the line at fault.
func TestLoadRefusesBadFiles(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"syntax", "[[project]]\nname = \"a\"\ndir = /srv\n", ":3: "},
		{"type", "[[project]]\nname = 3\ndir = \"/srv\"\n", ":2: "},
		{"unknown key", "[[project]]\nname = \"a\"\ncomand = [\"ssh\"]\n", `:3: unknown key "project.comand"`},
		{"bad name", "[[project]]\nname = \"a\"\ndir = \"/a\"\n\n[[project]]\nname = \"x y\"\ndir = \"/b\"\n", `:5: name "x y" is not letters`},
		{"both", "[[project]]\nname = \"a\"\ndir = \"/a\"\ncommand = [\"ssh\", \"h\", \"mcp\"]\n", ":1: project a has both dir and command"},
		{"neither", "[[project]]\nname = \"a\"\n", ":1: project a has neither dir nor command"},
		{"relative", "[[project]]\nname = \"a\"\ndir = \"srv\"\n", `:1: project a: dir "srv" is not absolute`},
		{"no mcp", "[[project]]\nname = \"a\"\ncommand = [\"ssh\", \"h\", \"flowdeck\"]\n", ":1: the transport command \"ssh h flowdeck\" must end with flowdeck's mcp subcommand"},
		{"dup name", "[[project]]\nname = \"a\"\ndir = \"/a\"\n[[project]]\nname = \"a\"\ndir = \"/b\"\n", ":4: project a is there twice (also project 1, line 1)"},
		{"dup dir", "[[project]]\nname = \"a\"\ndir = \"/a\"\n[[project]]\nname = \"b\"\ndir = \"/a/\"\n", ":4: directory /a is there twice"},
		{"dup command", "[[project]]\nname = \"a\"\ncommand = [\"x\", \"mcp\"]\n[[project]]\nname = \"b\"\ncommand = [\"x\", \"mcp\"]\n", ":4: command x mcp is there twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fleet.toml")
			if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %s…%s", err, path, c.want)
			}
		})
	}
}

// A home-relative dir in a hand-written file is the home's.
func TestLoadExpandsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := filepath.Join(t.TempDir(), "fleet.toml")
	os.WriteFile(path, []byte("[[project]]\nname = \"a\"\ndir = \"~/src/a\"\n"), 0o600)
	got, err := Load(path)
	if err != nil || got[0].Dir != filepath.Join(home, "src", "a") {
		t.Fatalf("%+v %v", got, err)
	}
}

// A transport command must end with mcp; the refusal shows an example.
func TestCheckCommand(t *testing.T) {
	for _, ok := range [][]string{
		{"ssh", "host", "flowdeck", "--dir", "/srv/app", "mcp"},
		{"kubectl", "exec", "-i", "pod", "--", "flowdeck", "--dir", "/app", "mcp"},
		{"flowdeck", "mcp"},
	} {
		if err := CheckCommand(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range [][]string{nil, {"mcp"}, {"ssh", "host", "flowdeck"}, {"ssh", "host", "flowdeck", "mcp", "--person"}, {"ssh", "", "mcp"}, {"ssh", "a\nb", "mcp"}} {
		err := CheckCommand(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if len(bad) > 2 && !strings.Contains(err.Error(), "e.g. ssh HOST flowdeck --dir /srv/app mcp") && !strings.Contains(err.Error(), "argument") {
			t.Errorf("%q: no example in %v", bad, err)
		}
	}
}

// Add refuses a second project of the same name, directory or command;
// Remove names the fleet's projects when there is no such one.
func TestAddRemove(t *testing.T) {
	es, err := Add(nil, Entry{Name: "a", Dir: "/a"})
	if err != nil {
		t.Fatal(err)
	}
	es, err = Add(es, Entry{Name: "b", Command: []string{"ssh", "h", "flowdeck", "mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, dup := range []Entry{{Name: "a", Dir: "/c"}, {Name: "c", Dir: "/a"}, {Name: "c", Command: []string{"ssh", "h", "flowdeck", "mcp"}}} {
		if _, err := Add(es, dup); err == nil || !strings.Contains(err.Error(), "already in the fleet") {
			t.Errorf("%+v: %v", dup, err)
		}
	}
	if _, err := Add(es, Entry{Name: "-x", Dir: "/x"}); err == nil {
		t.Error("a name starting with '-' accepted")
	}
	if _, err := Remove(es, "zz"); err == nil || !strings.Contains(err.Error(), "(a, b)") {
		t.Fatalf("remove unknown: %v", err)
	}
	es2, err := Remove(es, "a")
	if err != nil || len(es2) != 1 || es2[0].Name != "b" || es[0].Name != "a" {
		t.Fatalf("remove: %+v %v (original %+v)", es2, err, es)
	}
}

// LocalDir makes a directory absolute and finds the project it is in;
// a file or a missing directory is refused.
func TestLocalDir(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	t.Chdir(filepath.Join(root, "a"))
	got, err := LocalDir("b")
	if err != nil || got != root {
		t.Fatalf("LocalDir(b) = %q, %v; want %q", got, err, root)
	}
	file := filepath.Join(root, "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := LocalDir(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a file: %v", err)
	}
	if _, err := LocalDir(filepath.Join(root, "gone")); err == nil {
		t.Fatal("a missing directory accepted")
	}
}

// The paths follow XDG: $XDG_CONFIG_HOME and $XDG_STATE_HOME when set and
// absolute, else under the home.
func TestDefaultPaths(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "relative")
	if got := DefaultPath(); got != "/home/u/.config/flowdeck/fleet.toml" {
		t.Error(got)
	}
	if got := DefaultKnownPath(); got != "/home/u/.local/state/flowdeck/projects" {
		t.Error(got)
	}
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got := DefaultPath(); got != "/x/cfg/flowdeck/fleet.toml" {
		t.Error(got)
	}
	if got := DefaultKnownPath(); got != "/x/state/flowdeck/projects" {
		t.Error(got)
	}
}
