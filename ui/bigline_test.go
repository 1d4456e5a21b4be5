package ui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
)

// TestFiftyMBLineCockpit stores a run whose output is one 50 MB line, then
// runs the cockpit headless in a child process (TestBigLineChild), which
// reads that run into the output pane to its end and quits. The child's
// peak RSS must stay under 150 MB (it was 360–470 MB, and the pane could
// spin forever on sequences it could not finish). How long quitting took
// is logged.
func TestFiftyMBLineCockpit(t *testing.T) {
	if testing.Short() {
		t.Skip("stores and reads 50 MB; skipped with -short")
	}
	if raceDetector {
		t.Skip("peak RSS means nothing under -race (shadow memory); .ci/run runs this test without it")
	}
	path := filepath.Join(t.TempDir(), db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := model.RunRecord{Argv: []string{"cat", "big.min.js"}, Actor: "seed", Start: t0}
	w, err := st.StartRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("var a=1;\x1b[1mb\x1b[m"), (1<<20)/16)
	for written := 0; written < 50<<20; written += len(chunk) {
		if err := writeRaw(w, chunk); err != nil {
			t.Fatal(err)
		}
	}
	writeRaw(w, []byte("\n\x1b]0;"+strings.Repeat("A", 70000))) // and an unterminated OSC
	if _, err := w.Finish(model.RunRecord{Argv: rec.Argv, Outcome: "exited"}, 0); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBigLineChild$", "-test.v")
	cmd.Env = append(os.Environ(), "FLOWDECK_BIGLINE_DB="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var peak int
	var quit time.Duration
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "BIGLINE" {
			peak, _ = strconv.Atoi(f[1])
			quit, _ = time.ParseDuration(f[2])
		}
	}
	if peak == 0 {
		t.Fatalf("the child reported nothing:\n%s", out)
	}
	t.Logf("peak RSS %d MB; quitting took %v", peak>>10, quit)
	if peak > 150<<10 {
		t.Errorf("peak RSS %d MB reading one 50 MB line (limit 150 MB)", peak>>10)
	}
}

// TestBigLineChild is the headless cockpit of TestFiftyMBLineCockpit; it
// prints "BIGLINE <VmHWM kB> <time to quit>".
func TestBigLineChild(t *testing.T) {
	path := os.Getenv("FLOWDECK_BIGLINE_DB")
	if path == "" {
		t.Skip("run by TestFiftyMBLineCockpit")
	}
	st, err := db.Open(path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	loaded, done, cut := false, false, false
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		switch msg := msg.(type) {
		case loadedMsg:
			loaded = true
		case outputMsg:
			done = done || !msg.more && msg.err == nil && len(msg.lines) > 0
			for _, l := range msg.lines {
				cut = cut || strings.HasSuffix(l.Plain, "more bytes on this line]")
			}
		}
		return msg
	}
	m := New(testProject(st, darkConfig(), nil), Options{NoColor: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48), teatest.WithProgramOptions(tea.WithFilter(filter)))
	go func() { _, _ = io.Copy(io.Discard, tm.Output()) }()
	wait := func(what string, cond func() bool) { waitLocked(t, &mu, 2*time.Minute, what, cond) }
	wait("the first load", func() bool { return loaded })
	tm.Send(uitest.Key("4"))
	tm.Send(uitest.Key("enter"))
	wait("the whole output", func() bool { return done })
	start := time.Now()
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
	quit := time.Since(start)
	status, _ := os.ReadFile("/proc/self/status")
	if !cut {
		t.Fatal("the pane never showed the 50 MB line (cut to its first 64 KiB)")
	}
	fmt.Printf("BIGLINE %d %v\n", statusKB(string(status), "VmHWM:"), quit)
}
