package ui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/termtext"
)

// TestHostileCorpusRealCockpit opens the real cockpit binary under a pty on
// the hostile project, visits the panes and quits, and reads every byte the
// terminal received: no OSC but the title (which holds no corpus text), no
// clipboard write, no link, no DCS/APC/PM/SOS from the corpus, no blink or
// conceal, no C1 control and no bidi character.
func TestHostileCorpusRealCockpit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the real binaries")
	}
	bins := binaries(t)
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hostileSeed(t, st)
	cfgHome := t.TempDir()
	os.MkdirAll(filepath.Join(cfgHome, "flowdeck"), 0o755)
	os.WriteFile(filepath.Join(cfgHome, "flowdeck", "config.toml"), []byte("theme = \"dark\"\n"), 0o644)

	cmd := exec.Command(filepath.Join(bins, "flowdeck"), "--dir", dir)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "NO_COLOR=", "XDG_CONFIG_HOME="+cfgHome)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 160, Rows: 48})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	seen := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Contains(out.Bytes(), []byte(s))
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); {
			if time.Now().After(deadline) {
				mu.Lock()
				t.Fatalf("no %s after 30 s:\n%q", what, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("first frame", func() bool { return seen("Marker") })
	size := func() int { mu.Lock(); defer mu.Unlock(); return out.Len() }
	// Visit the panes and modes. A key may be refused (a prompt that just
	// appeared ignores keys for a moment) and draw nothing: each waits a
	// while for a redraw, but only the bytes that did arrive are judged.
	press := func(k string) bool {
		mark := size()
		f.Write([]byte(k))
		for deadline := time.Now().Add(time.Second); size() == mark && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		return size() > mark
	}
	for i := 0; i < 5 && !press("\x1b"); i++ { // dock the review prompt
	}
	for _, k := range []string{"2", "3", "4", "5", "6", "7", "?", "\x1b", "1"} {
		if !press(k) {
			t.Logf("no redraw after %q", k)
		}
	}
	f.Write([]byte("q"))
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Log("q did not quit the cockpit: killed")
		cmd.Process.Kill() // quitting is not what this test is about
		<-exited
	}
	f.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if err := checkTerminalStream(out.Bytes()); err != nil {
		t.Error(err)
	}
}

// checkTerminalStream walks a terminal byte stream with x/ansi's decoder.
func checkTerminalStream(b []byte) error {
	var state byte
	p := ansi.NewParser()
	for len(b) > 0 {
		seq, _, n, ns := ansi.DecodeSequence(b, state, p)
		state = ns
		b = b[n:]
		s := string(seq)
		switch {
		case ansi.HasOscPrefix(seq):
			cmd := p.Command()
			body := strings.TrimRight(strings.TrimPrefix(s, "\x1b]"), "\x07\x1b\\")
			switch {
			case cmd == 0 || cmd == 2:
				if !termtext.Safe(body) {
					return fmt.Errorf("title %q", body)
				}
			default:
				return fmt.Errorf("OSC %d: %q", cmd, s)
			}
		case ansi.HasDcsPrefix(seq) || ansi.HasApcPrefix(seq) || ansi.HasPmPrefix(seq) || ansi.HasSosPrefix(seq):
			for _, bad := range []string{"1$qm", "apc", "pm", "sos"} {
				if strings.Contains(s, bad) {
					return fmt.Errorf("corpus string sequence %q", s)
				}
			}
		case ansi.HasCsiPrefix(seq):
			if s == "\x1b[6n" || s == "\x1b[c" { // the corpus's queries
				return fmt.Errorf("query %q reached the terminal", s)
			}
			if strings.HasSuffix(s, "m") && !strings.ContainsAny(s[2:], "<=>?") {
				if err := sgrSafe(s); err != nil {
					return err
				}
			}
		case len(seq) > 0 && seq[0] >= 0x80:
			r := []rune(s)[0]
			if termtext.IsC1(r) || termtext.IsBidi(r) {
				return fmt.Errorf("U+%04X reached the terminal", r)
			}
			if len(seq) == 1 && seq[0] < 0xa0 {
				return fmt.Errorf("raw C1 byte %#x reached the terminal", seq[0])
			}
		}
	}
	return nil
}

// sgrSafe refuses blink (5, 6) and conceal (8) in an SGR sequence.
func sgrSafe(s string) error {
	ps := strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "\x1b["), "m"), ";")
	for i := 0; i < len(ps); i++ {
		switch ps[i] {
		case "38", "48", "58":
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		case "5", "6", "8":
			return fmt.Errorf("SGR %s in %q", ps[i], s)
		}
	}
	return nil
}
