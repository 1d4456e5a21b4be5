// Package demo builds the throwaway project behind `flowdeck demo`: a
// realistic session half-way through its plan, with real runs as evidence,
// and a scripted agent that keeps working on it through the real CLI.
package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/flowdeck/flowdeck/capture"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// Goal is the demo session's goal.
const Goal = "Add OAuth login to the web app"

// Plan is a 12-feature plan with two roots, a diamond and a blocked_by edge.
func Plan() model.Plan {
	f := func(id, title string, deps []string, _ ...string) model.Feature {
		return model.Feature{ID: id, Title: title, DependsOn: deps, Verification: []string{"scripts/verify " + id},
			Files: []string{"internal/" + id + ".go"}, Summary: title + "."}
	}
	p := model.Plan{
		Summary:      "Users sign in with GitHub or Google; sessions survive restarts.",
		Overview:     "OAuth 2.0 authorization-code flow with PKCE, server-side sessions in Postgres.",
		Requirements: []string{"PKCE on every flow", "sessions expire after 14 days", "no tokens in logs"},
		Decisions:    []string{"golang.org/x/oauth2 for the client", "session ids are 32 random bytes, stored hashed"},
		Features: []model.Feature{
			f("config-schema", "OAuth provider config", nil, "go test ./internal/config/..."),
			f("token-store", "Encrypted token storage", nil, "go test ./internal/tokens/..."),
			f("oauth-client", "OAuth client with PKCE", []string{"config-schema"}, "go test ./internal/oauth/..."),
			f("session-store", "Server-side sessions", []string{"token-store"}, "go test ./internal/session/..."),
			f("callback-handler", "Callback endpoint", []string{"oauth-client", "session-store"}, "go test ./internal/web/..."),
			f("provider-github", "GitHub provider", []string{"oauth-client"}, "go test ./internal/oauth/github/..."),
			f("provider-google", "Google provider", []string{"oauth-client"}, "go test ./internal/oauth/google/..."),
			f("login-page", "Login page", []string{"callback-handler"}, "npm test -- login"),
			f("logout", "Logout and session revocation", []string{"session-store", "callback-handler"}, "go test ./internal/web/..."),
			f("audit-log", "Audit log of sign-ins", []string{"callback-handler"}, "go test ./internal/audit/..."),
			f("rate-limit", "Rate limit on the callback", []string{"callback-handler"}, "go test ./internal/web/..."),
			f("e2e-tests", "End-to-end sign-in tests", []string{"login-page", "logout", "provider-github"}, "npm run e2e"),
		},
	}
	p.Features[6].BlockedBy = []string{"provider-github"}
	return p
}

// VerifyScript is the demo project's test runner, scripts/verify FEATURE:
// go-test-like output with colour and a \r progress bar, DEMO_LINES cases
// DEMO_DELAY seconds apart, failing when DEMO_FAIL is set, and a last line
// the project's pattern (PatternTOML) summarises.
const VerifyScript = `#!/bin/sh
# The demo's stand-in for a test suite.
feature=${1:-all}
lines=${DEMO_LINES:-6}
delay=${DEMO_DELAY:-0}
i=0
while [ $i -lt 10 ]; do
  i=$((i+1))
  bar=$(printf '%*s' $((i*2)) '' | tr ' ' '#')
  printf '\rcompiling [%-20s] %d%%' "$bar" $((i*10))
  sleep "$delay"
done
printf '\r\033[K'
i=0
while [ $i -lt "$lines" ]; do
  i=$((i+1))
  echo "=== RUN   Test_${feature}/case_$i"
  echo "--- PASS: Test_${feature}/case_$i (0.0${i}s)"
  sleep "$delay"
done
if [ -n "$DEMO_FAIL" ]; then
  echo "--- FAIL: Test_${feature}/expired_state (0.01s)"
  echo "    ${feature}_test.go:88: state cookie accepted after expiry"
  printf '\033[31mFAIL\033[0m %s: %d passed, 1 failed\n' "$feature" "$lines"
  exit 1
fi
printf '\033[32mPASS\033[0m %s: %d passed, 0 failed\n' "$feature" "$lines"
`

// PatternTOML is the demo project's own output pattern: flowdeck's
// classifier learns the verify script's summary line from it.
const PatternTOML = `# How flowdeck summarises the demo's scripts/verify (a project pattern).
[[pattern]]
name = "verify"
command_match = '(^|/)verify\b'

[pattern.success]
pattern = '(?P<passed>\d+) passed, (?P<failed>\d+) failed'
summary = '{passed} passed, {failed} failed'

[pattern.failure]
strategy = "grep"
grep = 'FAIL|_test.go'
`

// WriteProject puts the verify script and the pattern into dir, through an
// os.Root on it: a link in dir that leads out of it is refused, not followed.
func WriteProject(dir string) error {
	return writeFiles(dir, []projectFile{
		{filepath.Join("scripts", "verify"), VerifyScript, 0o755},
		{filepath.Join(".flow", "patterns", "demo.toml"), PatternTOML, 0o644},
	})
}

// projectFile is one file a demo project starts with.
type projectFile struct {
	name, text string
	mode       os.FileMode
}

// writeFiles writes files into dir through an os.Root on it, creating
// their directories: a link in dir that leads out of it is refused.
func writeFiles(dir string, files []projectFile) error {
	r, err := contain.Open(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, f := range files {
		if err := r.MkdirAll(filepath.Dir(f.name), 0o755); err != nil {
			return contain.Fault(dir, err)
		}
		if err := contain.WriteAtomic(r, f.name, []byte(f.text), f.mode); err != nil {
			return err
		}
	}
	return nil
}

// Seed writes the demo project into dir and fills st (the project's store)
// with the demo session: four features completed with observed or reported
// evidence, provider-github blocked, and callback-handler in progress with a
// failed and then a passing observed run, awaiting the person's review.
func Seed(ctx context.Context, st *db.Store, dir string, set *patterns.Set) error {
	if err := WriteProject(dir); err != nil {
		return err
	}
	now := time.Now()
	do := func(a model.Action, actor string) error {
		_, err := st.Do(a, actor, now)
		return err
	}
	run := func(feature string, fail bool, scope model.Scope) error {
		env := os.Environ()
		if fail {
			env = append(env, "DEMO_FAIL=1")
		}
		_, err := capture.Run(ctx, st, capture.Options{
			Argv: []string{"scripts/verify", feature}, Dir: dir, Env: env, Patterns: set,
			Feature: feature, Scope: scope, Actor: "worker", RetainBytes: -1,
		})
		return err
	}
	steps := []func() error{
		func() error { return do(model.PlanStart{Goal: Goal}, "planner") },
		func() error { return do(model.PlanApply{Plan: Plan()}, "planner") },
		func() error { return do(model.PlanApprove{}, "human") },
	}
	complete := func(id string, observed bool) {
		steps = append(steps,
			func() error { return do(model.RunStart{Feature: id}, "worker") },
			func() error {
				if observed {
					return run(id, false, model.ScopeTargeted)
				}
				return do(model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeTargeted,
					Command: "scripts/verify " + id, Summary: "14 passed"}, "worker")
			},
			func() error { return do(model.ReviewFeature{Feature: id, Decision: model.ReviewApproved}, "reviewer") },
			func() error {
				return do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted, Summary: "done"}, "worker")
			},
		)
	}
	complete("config-schema", true)
	complete("token-store", false)
	complete("oauth-client", true)
	complete("session-store", true)
	steps = append(steps,
		func() error { return do(model.RunStart{Feature: "provider-github"}, "worker") },
		func() error {
			return do(model.RunComplete{Feature: "provider-github", Outcome: model.OutcomeBlocked,
				Summary: "needs the GitHub OAuth app's client secret from IT"}, "worker")
		},
		func() error { return do(model.RunStart{Feature: "callback-handler"}, "worker") },
		func() error { return run("callback-handler", true, model.ScopeTargeted) },
		func() error { return run("callback-handler", false, model.ScopeTargeted) },
		func() error {
			return do(model.AddNote{Text: "callback-handler: fixed the expired-state check; ready for review"}, "worker")
		},
	)
	for _, step := range steps {
		if err := step(); err != nil {
			if _, refused := model.AsError(err); !refused {
				return err
			}
			return fmt.Errorf("demo seed: %w", err)
		}
	}
	return nil
}
