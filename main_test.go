package main

import (
	"os/exec"
	"strings"
	"testing"
)

// leanAllowed are the only packages outside the standard library that the
// lean flowdeck binary may link: what reading the status digest needs.
// Every other package's init would run in every agent call (cobra building
// ~50 commands, zstd's and expr's tables, go-runewidth's 17 ms); commands
// that need them run in flowdeck-cli, which this binary becomes. Packages
// of this module are named exactly; the others with their subpackages.
var leanAllowed = []string{
	"github.com/flowdeck/flowdeck",
	"github.com/flowdeck/flowdeck/internal/lean",
	"github.com/flowdeck/flowdeck/internal/digest",
	"github.com/flowdeck/flowdeck/internal/rootdir",
	"github.com/flowdeck/flowdeck/termtext/ctl",
	"go.etcd.io/bbolt/...",
	"golang.org/x/sys/unix",
	"golang.org/x/term",
}

// leanMay reports whether pkg is in leanAllowed.
func leanMay(pkg string) bool {
	for _, a := range leanAllowed {
		if tree, ok := strings.CutSuffix(a, "/..."); ok && (pkg == tree || strings.HasPrefix(pkg, tree+"/")) || pkg == a {
			return true
		}
	}
	return false
}

// TestLeanBinaryDeps fails when the lean flowdeck binary links a package
// beyond leanAllowed.
func TestLeanBinaryDeps(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot list the lean binary's dependencies")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	var seen int
	for _, pkg := range strings.Fields(string(out)) {
		if !leanMay(pkg) {
			t.Errorf("the lean flowdeck binary links %s: keep it in flowdeck-cli (find the path with: go mod why %s)", pkg, pkg)
		}
		seen++
	}
	for _, pkg := range []string{"github.com/flowdeck/flowdeck/model", "github.com/flowdeck/flowdeck/termtext", "github.com/spf13/cobra"} {
		if leanMay(pkg) {
			t.Errorf("the allow-list lets %s through", pkg)
		}
	}
	if seen < 3 {
		t.Fatalf("go list found %d packages: %q", seen, out)
	}
}
