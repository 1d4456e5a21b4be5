package demo

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/model"
)

// CrewParallel is how many agents the crew demo plan allows at once.
const CrewParallel = 3

// ConflictPair are two features the agents start at once (both roots of
// the plan) whose workers both append to internal/registry.go: in separate
// git worktrees the second merge conflicts, and the person resolves it by a
// decision. login-page has slack (only rate-limit and the last feature
// wait for it), so when it is the one that conflicts the extra round does
// not lengthen the critical path; a pair of critical-path roots would.
var ConflictPair = [2]string{"config-schema", "login-page"}

// RegistryFile is the file both features of ConflictPair append to.
var RegistryFile = filepath.Join("internal", "registry.go")

// CrewPlan is the 12-feature plan of `flowdeck demo --agents 3`: three
// independent branches (oauth, sessions, web) joined by the callback and the
// end-to-end tests. Its critical path is 4 features long, so three agents
// need about 4/12 of the time one agent needs.
func CrewPlan() model.Plan {
	f := func(id, title string, deps ...string) model.Feature {
		return model.Feature{ID: id, Title: title, DependsOn: deps, Verification: []string{"scripts/check " + id},
			Files: []string{"internal/" + id + ".go"}, Summary: title + "."}
	}
	p := Plan()
	p.MaxParallel = CrewParallel
	p.Features = []model.Feature{
		f("config-schema", "OAuth provider config"),
		f("token-store", "Encrypted token storage"),
		f("login-page", "Login page"),
		f("oauth-client", "OAuth client with PKCE", "config-schema"),
		f("session-store", "Server-side sessions", "token-store"),
		f("rate-limit", "Rate limit on the callback", "login-page"),
		f("callback-handler", "Callback endpoint", "oauth-client", "session-store"),
		f("provider-github", "GitHub provider", "oauth-client"),
		f("provider-google", "Google provider", "oauth-client"),
		f("logout", "Logout and session revocation", "session-store"),
		f("audit-log", "Audit log of sign-ins", "callback-handler"),
		f("e2e-tests", "End-to-end sign-in tests", "callback-handler", "login-page", "logout", "provider-github"),
	}
	return p
}

// CheckScript is the crew demo's verification: the feature's file exists
// and says it was built (the scripted worker writes it).
const CheckScript = `#!/bin/sh
# The crew demo's stand-in for a test suite: is FEATURE built?
f=${1:?usage: scripts/check FEATURE}
if grep -q "^// $f: built by" "internal/$f.go" 2>/dev/null; then
  echo "=== RUN   Test_$f"
  echo "--- PASS: Test_$f (0.00s)"
  printf 'PASS %s: 1 passed, 0 failed\n' "$f"
  exit 0
fi
echo "--- FAIL: Test_$f: internal/$f.go is missing or not built"
printf 'FAIL %s: 0 passed, 1 failed\n' "$f"
exit 1
`

// registryBase is RegistryFile before the features append to it.
const registryBase = "// Package internal registers the app's components.\npackage internal\n\n// registered:\n"

// WriteCrewProject writes the crew demo project into dir and, when git is
// installed, makes it a repository with one commit (the agents commit their
// work on top).
func WriteCrewProject(dir string) error {
	if err := WriteProject(dir); err != nil {
		return err
	}
	err := writeFiles(dir, []projectFile{
		{filepath.Join("scripts", "check"), CheckScript, 0o755},
		{RegistryFile, registryBase, 0o644},
		{".gitignore", ".flow/\n", 0o644},
	})
	if err != nil {
		return err
	}
	if !gitwork.Available() {
		return nil
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"config", "user.email", "demo@flowdeck.invalid"}, {"config", "user.name", "flowdeck demo"},
		{"add", "-A"}, {"commit", "-q", "-m", "demo project"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %v in %s: %v: %s", args, dir, err, out)
		}
	}
	return nil
}

// SeedCrew starts the crew demo's session with CrewPlan, approved, through
// do (the project's action path: approving it there sets up its git
// worktrees).
func SeedCrew(do func(a model.Action, actor string) ([]model.Event, error)) error {
	for _, a := range []struct {
		action model.Action
		actor  string
	}{
		{model.PlanStart{Goal: Goal}, "planner"},
		{model.PlanApply{Plan: CrewPlan()}, "planner"},
		{model.PlanApprove{}, "human"},
	} {
		if _, err := do(a.action, a.actor); err != nil {
			return fmt.Errorf("crew demo seed: %w", err)
		}
	}
	return nil
}

// StoreDo is an action path straight to st (no git worktrees), for tests
// that seed a session without them.
func StoreDo(st *db.Store, now func() time.Time) func(model.Action, string) ([]model.Event, error) {
	return func(a model.Action, actor string) ([]model.Event, error) {
		out, err := st.Do(a, actor, now())
		if out == nil {
			return nil, err
		}
		return out.Events, err
	}
}

// CrewAgents are the scripted worker and reviewer: bin (the flowdeck
// binary) run as `flowdeck demo crew-agent ROLE`, each feature taking work.
func CrewAgents(bin string, work time.Duration) map[string]config.Agent {
	env := map[string]string{"DEMO_WORK": work.String()}
	return map[string]config.Agent{
		"worker":   {Command: []string{bin, "demo", "crew-agent", "worker"}, Env: env, Timeout: "10m"},
		"reviewer": {Command: []string{bin, "demo", "crew-agent", "reviewer"}, Env: env, Timeout: "10m"},
	}
}
