package fleet

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flowdeck/flowdeck/fleet/fleetconf"
)

// A remote's diff keeps its lines and tabs, loses every escape and control,
// and is cut at a line end within MaxDiffBytes.
func TestDiffText(t *testing.T) {
	got := diffText("+a\tb\x1b]52;c;SGk=\x07\r\n-\x1b[31mred\u009b2J\n")
	if got != "+a\tb\n-red\n" {
		t.Fatalf("%q", got)
	}
	big := diffText(strings.Repeat("+0123456789\n", MaxDiffBytes/12+100))
	if len(big) > MaxDiffBytes+100 || !strings.HasSuffix(big, "bigger than the fleet shows\n") {
		t.Fatalf("a big diff: %d bytes, ends %q", len(big), big[len(big)-80:])
	}
	lines := strings.Split(big, "\n")
	for _, l := range lines[:len(lines)-2] {
		if l != "+0123456789" {
			t.Fatalf("a line cut: %q", l)
		}
	}
	one := diffText(strings.Repeat("é", MaxDiffBytes))
	if !utf8.ValidString(one) || len(one) > MaxDiffBytes+100 {
		t.Fatalf("one long line: %d bytes, valid %v", len(one), utf8.ValidString(one))
	}
}

func TestCut(t *testing.T) {
	if got := cut("abc", 3); got != "abc" {
		t.Error(got)
	}
	if got := cut("abcdé", 4); got != "abc…" {
		t.Error(got)
	}
	if got := line(strings.Repeat("ü", 500)); utf8.RuneCountInString(got) != MaxLine {
		t.Errorf("%d runes", utf8.RuneCountInString(got))
	}
}

// TestListingOfferSafe: a known directory named with an escape (a local
// path, but anyone's tarball may name it) is printed without it.
func TestListingOfferSafe(t *testing.T) {
	var b strings.Builder
	(&Listing{Offers: []fleetconf.Offer{{Name: "app", Dir: "/srv/app\x1b[2J", Command: "flowdeck fleet add app $'/srv/app\\e[2J'"}}}).Text(&b)
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), "not in the fleet: app /srv/app") {
		t.Errorf("listing %q: want the offer without its escape", b.String())
	}
}
