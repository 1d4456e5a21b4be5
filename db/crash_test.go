package db

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/model"
)

// TestMain lets the test binary act as the crash test's child: a process that
// performs actions in a loop and acknowledges each one after it committed.
func TestMain(m *testing.M) {
	if path := os.Getenv("FLOWDECK_CRASH_CHILD"); path != "" {
		crashChild(path, os.Getenv("FLOWDECK_CRASH_ROUND"))
		return
	}
	os.Exit(m.Run())
}

func crashChild(path, round string) {
	st, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		text := fmt.Sprintf("round %s note %d", round, i)
		var a model.Action = model.AddNote{Text: text}
		if i%7 == 3 {
			// Mix in actions that rewrite more of the session.
			a = model.PlanApply{Plan: twoFeaturePlan()}
			text = ""
		}
		if _, err := st.Do(a, "child", time.Now()); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		if text != "" {
			fmt.Println("ack", text)
		}
	}
}

// TestCrashKeepsAcknowledgedActions kills a writer with SIGKILL at random
// moments (each after it acknowledged at least one action), 20 times. After every kill the database opens, verify passes, and
// every action the child had acknowledged is in the log.
func TestCrashKeepsAcknowledgedActions(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test spawns 20 processes; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), ".flow", "flowdeck.db")
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := mustDo(t, st, model.PlanStart{Goal: "crash"}).Session.ID
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	acked := map[string]bool{}
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "FLOWDECK_CRASH_CHILD="+path, fmt.Sprintf("FLOWDECK_CRASH_ROUND=%d", round))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// The kill comes at a random moment after the child's first
		// acknowledged action of the round, not after a fixed time from its
		// start: on a loaded machine the child may not have run at all by then.
		delay := time.Duration(rng.IntN(150)) * time.Millisecond
		var deadline <-chan time.Time
		ackedHere := 0
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if text, ok := strings.CutPrefix(l, "ack "); ok {
					acked[text] = true
					if ackedHere++; ackedHere == 1 {
						deadline = time.After(delay)
					}
				} else {
					t.Fatalf("child: %s", l)
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				deadline = nil
			}
		}
		cmd.Wait()

		rep, err := st.Verify()
		if err != nil {
			t.Fatalf("round %d: database does not open after SIGKILL: %v", round, err)
		}
		if len(rep.Problems) > 0 {
			t.Fatalf("round %d: verify: %v", round, rep.Problems)
		}
	}
	events, err := st.Events(id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, e := range events {
		if e.Type == model.EventNoteAdded {
			stored[e.Text] = true
		}
	}
	for text := range acked {
		if !stored[text] {
			t.Errorf("acknowledged action lost: %q", text)
		}
	}
	if len(acked) < 20 {
		t.Errorf("only %d actions acknowledged in 20 rounds: the child barely ran", len(acked))
	}
	t.Logf("%d acknowledged actions, %d note events stored", len(acked), len(stored))
}
