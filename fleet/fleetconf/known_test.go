package fleetconf

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

// Remember keeps each root once, newest first, drops the ones whose
// directory is gone, and keeps at most MaxKnown.
func TestRemember(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state", "flowdeck", "projects")
	base := t.TempDir()
	dir := func(i int) string {
		d := filepath.Join(base, fmt.Sprint(i))
		os.MkdirAll(d, 0o755)
		return d
	}
	a, b, c := dir(1), dir(2), dir(3)
	for _, d := range []string{a, b, a, c} {
		if err := Remember(state, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Known(state)
	if err != nil || !slices.Equal(got, []string{c, a, b}) {
		t.Fatalf("known %v %v; want %v", got, err, []string{c, a, b})
	}
	os.RemoveAll(b)
	Remember(state, c)
	if got, _ := Known(state); !slices.Equal(got, []string{c, a}) {
		t.Fatalf("after b is gone: %v", got)
	}
	for i := range MaxKnown + 10 {
		if err := Remember(state, dir(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = Known(state)
	if len(got) != MaxKnown || got[0] != filepath.Join(base, fmt.Sprint(100+MaxKnown+9)) {
		t.Fatalf("%d known, newest %s", len(got), got[0])
	}
	if err := Remember(state, "relative"); err == nil {
		t.Fatal("a relative root recorded")
	}
	if err := Remember(state, a+"\nx"); err == nil {
		t.Fatal("a root with a newline recorded")
	}
	if err := Remember("", a); err == nil {
		t.Fatal("no path: recorded somewhere")
	}
}

// Offers are the known projects not in the fleet whose directory is
// there, with a valid free name and the command that adds them.
func TestOffers(t *testing.T) {
	base := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(base, name)
		os.MkdirAll(d, 0o755)
		return d
	}
	inFleet, web, odd, dup := mk("app"), mk("web"), mk(".my repo!"), filepath.Join(mk("other"), "app")
	os.MkdirAll(dup, 0o755)
	gone := filepath.Join(base, "gone")
	entries := []Entry{{Name: "app", Dir: inFleet}, {Name: "web", Command: []string{"ssh", "h", "mcp"}}}
	got := Offers([]string{inFleet, web, gone, odd, dup}, entries)
	want := []Offer{
		{Name: "web-2", Dir: web, Command: "flowdeck fleet add web-2 " + web},
		{Name: "my-repo-", Dir: odd, Command: "flowdeck fleet add my-repo- '" + odd + "'"},
		{Name: "app-2", Dir: dup, Command: "flowdeck fleet add app-2 " + dup},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("offers\n got %+v\nwant %+v", got, want)
	}
	for _, o := range got {
		if err := (Entry{Name: o.Name, Dir: o.Dir}).Check(); err != nil {
			t.Errorf("offer %+v: %v", o, err)
		}
	}
}

// TestShellQuote: an offer's command quotes its directory as a shell
// needs (model.ShellQuote).
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/srv/app": "/srv/app", "/a b": "'/a b'", "it's": `'it'\''s'`, "": "''", "$(x)": "'$(x)'"} {
		if got := model.ShellQuote(in); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
	if !strings.HasPrefix(model.ShellQuote("a;b"), "'") {
		t.Error("a ; unquoted")
	}
	// A directory named with an escape: the offer's command shows it as
	// \e, never the byte a terminal would act on.
	dir := filepath.Join(t.TempDir(), "app\x1b[2J")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	offers := Offers([]string{dir}, nil)
	if len(offers) != 1 || strings.Contains(offers[0].Command, "\x1b") || !strings.Contains(offers[0].Command, `\e[2J`) {
		t.Errorf("offers %q: want one whose command escapes the ESC", offers)
	}
}
