package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"flowdeck/model"
)

// demoPlan is a small but realistic plan used by `flowdeck demo`.
const demoPlan = `{
  "summary": "Add password reset to the web app",
  "overview": "Users can ask for a reset link by e-mail and set a new password.",
  "requirements": ["links expire after 30 minutes", "no user enumeration"],
  "decisions": ["tokens are random 32-byte values stored hashed"],
  "features": [
    {"id": "token-store", "title": "Reset token storage", "files": ["auth/tokens.go"], "verification": ["go test ./auth/..."]},
    {"id": "mailer", "title": "Reset e-mail", "files": ["mail/reset.go"], "verification": ["go test ./mail/..."]},
    {"id": "reset-api", "title": "Reset endpoints", "depends_on": ["token-store", "mailer"], "verification": ["go test ./api/..."]},
    {"id": "reset-ui", "title": "Reset pages", "depends_on": ["reset-api"], "verification": ["npm test"]}
  ]
}`

func (e *env) demoCommand() *cobra.Command {
	var keep bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Walk through a planning session on a throwaway project",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.MkdirTemp("", "flowdeck-demo-")
			if err != nil {
				return internalErr(err)
			}
			if keep {
				fmt.Fprintf(e.stdout, "demo project: %s (kept)\n", dir)
			} else {
				defer os.RemoveAll(dir)
			}
			plan := dir + "/plan.json"
			if err := os.WriteFile(plan, []byte(demoPlan), 0o644); err != nil {
				return internalErr(err)
			}
			steps := [][]string{
				{"flow", "plan", "start", "Password reset"},
				{"flow", "plan", "apply", plan},
				{"flow", "plan", "approve"},
				{"flow", "run", "start"},
				{"flow", "run", "complete", "token-store", "--outcome", "completed"},
				{"flow", "validate", "token-store", "--status", "passed", "--scope", "targeted", "--command", "go test ./auth/...", "--summary", "12 passed"},
				{"flow", "review", "token-store", "--decision", "approved"},
				{"flow", "run", "complete", "token-store", "--outcome", "completed"},
				{"flow", "run", "start", "reset-ui"},
				{"flow", "run", "start"},
				{"flow", "validate", "mailer", "--status", "failed", "--scope", "targeted", "--command", "go test ./mail/...", "--summary", "1 failed: TestResetMail"},
				{"flow", "reset", "feature", "token-store"},
				{"flow", "status"},
				{"diagram"},
			}
			for _, s := range steps {
				fmt.Fprintf(e.stdout, "\n$ flowdeck %s\n", model.ShellJoin(s))
				code := Run(append([]string{"--dir", dir, "--actor", "demo"}, s...), e.stdin, e.stdout, e.stdout)
				if code == ExitInternal || code == ExitUsage {
					return silent(code)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&keep, "keep", false, "keep the demo project for inspection")
	return c
}
