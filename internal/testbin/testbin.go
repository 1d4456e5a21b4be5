// Package testbin builds flowdeck's own binaries for the tests that run them
// as real processes: once per test binary, into one directory, because
// flowdeck finds flowdeck-cockpit and flowdeck-mcp next to itself.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
)

// The binaries and their packages.
const (
	Flowdeck = "github.com/flowdeck/flowdeck"
	CLI      = "github.com/flowdeck/flowdeck/cmd/flowdeck-cli"
	Cockpit  = "github.com/flowdeck/flowdeck/cmd/flowdeck-cockpit"
	MCP      = "github.com/flowdeck/flowdeck/cmd/flowdeck-mcp"
)

var (
	once sync.Once
	dir  string
	err  error
)

// Build compiles pkgs and flowdeck-cli (on the first call; later calls
// return the same directory) and returns the path of the flowdeck binary among them.
func Build(pkgs ...string) (string, error) {
	once.Do(func() {
		if dir, err = os.MkdirTemp("", "flowdeck-test-bin-"); err != nil {
			return
		}
		if !slices.Contains(pkgs, CLI) {
			pkgs = append(pkgs, CLI) // the lean flowdeck becomes it for most commands
		}
		args := append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README builds them: static
		if out, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("go build %v: %v\n%s", pkgs, berr, out)
		}
	})
	return filepath.Join(dir, "flowdeck"), err
}

// Cleanup removes what Build made; TestMain calls it after the tests.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
