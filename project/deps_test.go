package project

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontEndsDoNotImportDB fails when the command line, the MCP server,
// the cockpit or the binaries import the database package: they go through
// a *Project (tests may still prepare stores directly).
func TestFrontEndsDoNotImportDB(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot list the front-ends' imports")
	}
	out, err := exec.Command(goCmd, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}",
		"../cli/...", "../mcp/...", "../ui/...", "../cmd/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const dbPkg = "github.com/flowdeck/flowdeck/db"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if imp == dbPkg {
				t.Errorf("%s imports %s: go through project.Project instead", fields[0], dbPkg)
			}
		}
	}
}
