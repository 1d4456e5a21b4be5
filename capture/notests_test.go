package capture

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// A test command that ran no test is not passing evidence, and its
// headline says why: `go test -run X` matching nothing exits 0 with
// "[no tests to run]".
func TestNoTestsIsNotPassingEvidence(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: this test runs a real go test")
	}
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/nt\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "x_test.go"), []byte("package nt\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"), 0o644)
	st := newStore(t)
	activeFeature(t, st)
	run := func(args ...string) *Result {
		res, err := Run(context.Background(), st, Options{Argv: append([]string{"go", "test"}, args...), Dir: mod, Feature: "a", NoIsolation: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("-count=1", "-run", "XNothing", ".")
	if res.Run.ExitCode != 0 || res.Classification.Class != patterns.NoTests || res.Run.Class != string(patterns.NoTests) {
		t.Fatalf("exit %d, class %s (%s)", res.Run.ExitCode, res.Classification.Class, res.Headline)
	}
	if res.Headline != "⚠ go test: no tests ran, 1 package matched no test" {
		t.Errorf("headline %q", res.Headline)
	}
	if res.Evidence == nil || res.Evidence.Status != model.ValidationPartial || !strings.Contains(res.Evidence.Summary, "no tests ran") {
		t.Fatalf("evidence %+v", res.Evidence)
	}
	s, _ := st.Active()
	if got := model.StateOf(s, s.Plan.Feature("a")); got == model.StateAwaitingReview {
		t.Fatalf("a run of no test made the feature %s", got)
	}
	// The same package with its test selected passes.
	if res := run("-count=1", "-run", "TestA", "."); res.Evidence == nil || res.Evidence.Status != model.ValidationPassed {
		t.Fatalf("real test run: %s, evidence %+v", res.Headline, res.Evidence)
	}
}
