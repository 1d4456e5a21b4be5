package demo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// The crew plan is valid, allows 3 agents, and its critical path (4 of 12
// features) is what makes 3 agents take ≤ 45% of 1 agent's time.
func TestCrewPlanShape(t *testing.T) {
	p := CrewPlan()
	if err := model.ValidatePlan(&p); err != nil {
		t.Fatal(err)
	}
	levels := model.Levels(p.Features)
	if len(p.Features) != 12 || p.MaxParallel != CrewParallel || len(levels) != 4 {
		t.Fatalf("%d features, max_parallel %d, %d levels %v", len(p.Features), p.MaxParallel, len(levels), levels)
	}
	for _, id := range ConflictPair {
		if p.Feature(id) == nil {
			t.Fatalf("conflict pair feature %s is missing", id)
		}
	}
}

// The scripted worker builds the feature in its working directory (no git
// there: no commit) and answers completed; the reviewer approves.
func TestCrewAgentAnswers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("FLOWDECK_FEATURE", "login-page")
	t.Setenv("FLOWDECK_AGENT", "worker-2")
	t.Setenv("DEMO_WORK", "1ms")
	t.Setenv("DEMO_PIDS", "")
	var out bytes.Buffer
	if code := CrewAgent("worker", strings.NewReader("prompt"), &out); code != 0 || !strings.Contains(out.String(), `"outcome":"completed"`) {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	data, _ := os.ReadFile(filepath.Join(dir, "internal", "login-page.go"))
	prov, _ := os.ReadFile(filepath.Join(dir, RegistryFile))
	if !strings.HasPrefix(string(data), "// login-page: built by worker-2.") || string(prov) != "//   login-page\n" {
		t.Fatalf("files: %q %q", data, prov)
	}
	out.Reset()
	t.Setenv("FLOWDECK_FEATURE", "../x")
	if CrewAgent("worker", strings.NewReader(""), &out); !strings.Contains(out.String(), `"outcome":"blocked"`) {
		t.Fatalf("a feature path was accepted: %s", out.String())
	}
	out.Reset()
	if CrewAgent("reviewer", strings.NewReader(""), &out); !strings.Contains(out.String(), `"verdict":"approved"`) {
		t.Fatalf("reviewer: %s", out.String())
	}
}

// After a merge conflict the scripted worker merges the integration branch
// into its feature branch, keeps both sides, and commits; a second round
// adds nothing twice.
func TestCrewWorkerResolvesTheConflict(t *testing.T) {
	if !gitwork.Available() {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	git("config", "user.email", "t@example.com")
	git("config", "user.name", "t")
	os.MkdirAll("internal", 0o755)
	os.WriteFile(RegistryFile, []byte(registryBase), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	git("branch", "flowdeck/S")
	git("checkout", "-q", "flowdeck/S")
	os.WriteFile(RegistryFile, []byte(registryBase+"//   config-schema\n"), 0o644)
	git("commit", "-q", "-am", "config-schema")
	git("checkout", "-q", "main")
	t.Setenv("FLOWDECK_SESSION", "S")
	t.Setenv("FLOWDECK_AGENT", "worker-1")
	t.Setenv("DEMO_WORK", "1ms")
	t.Setenv("DEMO_PIDS", "")
	for round, prompt := range []string{"build it", "Completing the feature " + ConflictNote + ": … Rebase your branch"} {
		t.Setenv("FLOWDECK_FEATURE", "login-page")
		var out bytes.Buffer
		if code := CrewAgent("worker", strings.NewReader(prompt), &out); code != 0 || !strings.Contains(out.String(), `"outcome":"completed"`) {
			t.Fatalf("round %d: exit %d: %s", round, code, out.String())
		}
	}
	prov, _ := os.ReadFile(RegistryFile)
	if string(prov) != registryBase+"//   login-page\n//   config-schema\n" {
		t.Fatalf("%s:\n%s", RegistryFile, prov)
	}
	if git("status", "--porcelain") != "" || !strings.Contains(git("log", "--format=%s"), "merge flowdeck/S") {
		t.Fatalf("status %q, log %s", git("status", "--porcelain"), git("log", "--format=%s"))
	}
	// The merged branch now merges into the integration branch cleanly.
	git("checkout", "-q", "flowdeck/S")
	git("merge", "-q", "--no-edit", "main")
}
