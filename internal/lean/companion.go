package lean

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
)

// The binaries flowdeck is made of, besides this one.
const (
	CLIBinary     = "flowdeck-cli"     // every subcommand
	CockpitBinary = "flowdeck-cockpit" // every subcommand and the Bubble Tea cockpit
	MCPBinary     = "flowdeck-mcp"     // every subcommand and the MCP server
)

// InstallModule is the module path `go install` takes. A binary built from
// a checkout whose module path go install cannot fetch (no domain in it)
// points at it rather than at its own path.
const InstallModule = "github.com/flowdeck/flowdeck"

// FindCompanion looks for one of flowdeck's binaries next to this
// executable, then in PATH. When neither has it, the error says how to get
// it: a flowdeck copied alone onto PATH has none of them.
func FindCompanion(name string) (string, error) {
	where := "next to flowdeck"
	if self, err := os.Executable(); err == nil {
		dir := filepath.Dir(self)
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
		where = "in " + dir
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	mod := modulePath()
	return "", fmt.Errorf("%s not found %s or in PATH: flowdeck is four binaries and this one came alone. "+
		"Install all four with: go install %s/...@latest "+
		"(or just %s: go install %s/cmd/%s@latest), "+
		"or put %s from the release archive next to flowdeck", name, where, mod, name, mod, name, name)
}

// modulePath is the module this binary was built from, when go install can
// fetch it, else InstallModule.
func modulePath() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if p := bi.Main.Path; strings.Contains(strings.Split(p, "/")[0], ".") {
			return p
		}
	}
	return InstallModule
}

// Forward becomes flowdeck-cli with this process's arguments (argv, its
// name first) and environment, in directory chdir when it is not "" (the
// hook's working directory: $PWD follows, as a shell's would). It returns
// only when it cannot.
func Forward(argv []string, chdir string) error {
	bin, err := FindCompanion(CLIBinary)
	if err != nil {
		return err
	}
	env := os.Environ()
	if chdir != "" && os.Chdir(chdir) == nil && filepath.IsAbs(chdir) {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "PWD=") })
		env = append(env, "PWD="+chdir)
	}
	if err := syscall.Exec(bin, argv, env); err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	return nil
}
