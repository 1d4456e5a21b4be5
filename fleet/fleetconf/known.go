package fleetconf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowdeck/flowdeck/model"
)

// MaxKnown bounds the known projects: the newest are kept.
const MaxKnown = 200

// maxKnownBytes bounds how much of the known projects' file is read.
const maxKnownBytes = 1 << 20

// DefaultKnownPath is where `flowdeck init` records the projects it ran
// in: $XDG_STATE_HOME/flowdeck/projects, else
// ~/.local/state/flowdeck/projects; "" when neither can be found.
func DefaultKnownPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "flowdeck", "projects")
}

// Known reads the known projects' roots, newest first: one absolute path
// per line, oldest first in the file. A missing file is none; lines that
// are not absolute paths are skipped.
func Known(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKnownBytes))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if p := string(line); filepath.IsAbs(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// Remember records root as the newest known project: once, the roots whose
// directory is gone dropped (tests and throwaway checkouts come and go),
// at most MaxKnown kept. The file is replaced atomically; two inits at the
// same moment may keep only one of them.
func Remember(path, root string) error {
	if path == "" {
		return fmt.Errorf("no state directory: neither $XDG_STATE_HOME nor a home directory")
	}
	if !filepath.IsAbs(root) || strings.ContainsAny(root, "\n\r\x00") {
		return fmt.Errorf("project root %q: not an absolute path on one line", root)
	}
	old, err := Known(path)
	if err != nil {
		return err
	}
	keep := []string{root}
	for _, p := range old {
		if p == root || len(keep) == MaxKnown {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			keep = append(keep, p)
		}
	}
	slices.Reverse(keep) // oldest first in the file
	return writeAtomic(path, []byte(strings.Join(keep, "\n")+"\n"))
}

// Offer is a known project that is not in the fleet: what `fleet list`
// proposes to add.
type Offer struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// Command is the shell command that adds it (model.ShellQuote: a
	// directory holding controls shows them escaped, as $'…').
	Command string `json:"command"`
}

// Offers are the known projects (newest first) that no local entry of the
// fleet holds and whose directory is still there, each with a name that is
// valid and not taken.
func Offers(known []string, entries []Entry) []Offer {
	taken := map[string]bool{}
	dirs := map[string]bool{}
	for _, e := range entries {
		taken[e.Name] = true
		if e.Dir != "" {
			dirs[filepath.Clean(e.Dir)] = true
		}
	}
	var out []Offer
	for _, dir := range known {
		if dirs[filepath.Clean(dir)] {
			continue
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		name := freeName(nameFor(dir), taken)
		taken[name] = true
		out = append(out, Offer{Name: name, Dir: dir, Command: "flowdeck fleet add " + name + " " + model.ShellQuote(dir)})
	}
	return out
}

// nameFor makes a project name from a directory's base name: characters
// outside the name rule become '-', cut to the rule's length.
func nameFor(dir string) string {
	b := []byte(filepath.Base(dir))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	name := strings.TrimLeft(string(b), ".-_")
	if len(name) > model.MaxAgentNameLen-4 {
		name = name[:model.MaxAgentNameLen-4] // room for a -NNN suffix
	}
	if name == "" {
		name = "project"
	}
	return name
}

// freeName is name, or name-2, name-3 … when taken.
func freeName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s-%d", name, i); !taken[n] {
			return n
		}
	}
}
