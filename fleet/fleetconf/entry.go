// Package fleetconf is the fleet's configuration: the user's list of
// projects (fleet.toml) and the projects `flowdeck init` ran in on this
// machine. It is apart from package fleet, which holds the MCP clients, so
// that flowdeck-cli (fleet add, fleet rm, init) links no MCP SDK.
package fleetconf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/internal/rootdir"
	"github.com/flowdeck/flowdeck/model"
)

// Entry is one project of the fleet as the user's config keeps it: a local
// directory, or a transport command that ends by running `flowdeck … mcp`.
type Entry struct {
	Name    string   `toml:"name" json:"name"`
	Dir     string   `toml:"dir,omitempty" json:"dir,omitempty"`
	Command []string `toml:"command,omitempty" json:"command,omitempty"`
}

// Remote reports whether the project is reached through a transport command.
func (e Entry) Remote() bool { return len(e.Command) > 0 }

// Where is how a row names where the project is: its directory, or its
// transport command.
func (e Entry) Where() string {
	if e.Remote() {
		return strings.Join(e.Command, " ")
	}
	return e.Dir
}

// commandExample is shown with every refused transport command.
const commandExample = "e.g. ssh HOST flowdeck --dir /srv/app mcp, kubectl exec -i POD -- flowdeck --dir /app mcp, docker exec -i BOX flowdeck mcp"

// Check reports what is wrong with e: a name that is not letters, digits,
// '.', '_' and '-' (the rule of agent names), neither or both of a
// directory and a command, a directory that is not absolute, or a command
// that does not end with `mcp`.
func (e Entry) Check() error {
	if !model.ValidAgentName(e.Name) {
		return fmt.Errorf("name %.80q is not letters, digits, '.', '_' and '-', starting with a letter or digit (at most %d)", e.Name, model.MaxAgentNameLen)
	}
	switch {
	case e.Dir != "" && e.Remote():
		return fmt.Errorf("project %s has both dir and command: give one", e.Name)
	case e.Dir == "" && !e.Remote():
		return fmt.Errorf("project %s has neither dir nor command: give one", e.Name)
	case e.Remote():
		return CheckCommand(e.Command)
	case !filepath.IsAbs(e.Dir):
		return fmt.Errorf("project %s: dir %q is not absolute", e.Name, e.Dir)
	}
	return nil
}

// CheckCommand accepts a transport command whose last argument is `mcp`:
// the fleet appends `--person --via ORIGIN` after it, and drops it for the
// interactive form that attaches the project's cockpit.
func CheckCommand(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("the transport command is empty (%s)", commandExample)
	}
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, "\x00\n") {
			return fmt.Errorf("the transport command's argument %d is empty or holds a NUL or newline", i+1)
		}
	}
	if len(argv) < 2 || argv[len(argv)-1] != "mcp" {
		return fmt.Errorf("the transport command %q must end with flowdeck's mcp subcommand, so that the fleet can add --person --via and drop mcp to attach the cockpit (%s)",
			strings.Join(argv, " "), commandExample)
	}
	return nil
}

// LocalDir is the project root for a local entry's dir: made absolute,
// checked to be a directory, then the project it is in (the nearest
// directory upward with .git or .flow, as every flowdeck command finds it).
func LocalDir(dir string) (string, error) {
	abs, err := filepath.Abs(expandHome(dir))
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return rootdir.Find(abs)
}

// expandHome turns a leading ~/ into the home directory: hand-written
// config files use it.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
