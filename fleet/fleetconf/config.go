package fleetconf

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/flowdeck/flowdeck/internal/contain"
)

// DefaultPath is $XDG_CONFIG_HOME/flowdeck/fleet.toml, else
// ~/.config/flowdeck/fleet.toml; "" when neither can be found.
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) { // the spec says a relative one is ignored
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "flowdeck", "fleet.toml")
}

// file is fleet.toml.
type file struct {
	Project []Entry `toml:"project"`
}

// projectHeader is a [[project]] table's header line.
var projectHeader = regexp.MustCompile(`^\s*\[\[\s*"?project"?\s*\]\]`)

// lineMsg is how the toml package words an error it has no ParseError
// for.
var lineMsg = regexp.MustCompile(`^line (\d+) (.*)$`)

// Load reads the fleet's projects from path, in the file's order. A
// missing file is an empty fleet. Any problem is an error naming the file
// and the line: bad TOML, an unknown key, a project Check refuses, a name,
// directory or command that is there twice.
func Load(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		// A value of the wrong type: "toml: line 2 (last key …): …".
		msg := strings.TrimPrefix(err.Error(), "toml: ")
		if m := lineMsg.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", path, m[1], m[2])
		}
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	lines := headerLines(data)
	lineOf := func(i int) int {
		if i < len(lines) {
			return lines[i]
		}
		return 0
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("%s: unknown key %q: a [[project]] has name, and dir or command", at(path, keyLine(data, u[0][len(u[0])-1])), u[0].String())
	}
	for i := range f.Project {
		e := &f.Project[i]
		if e.Dir != "" {
			e.Dir = filepath.Clean(expandHome(e.Dir))
		}
		if err := e.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", at(path, lineOf(i)), err)
		}
		if j := slices.IndexFunc(f.Project[:i], func(o Entry) bool { return same(o, *e) != "" }); j >= 0 {
			return nil, fmt.Errorf("%s: %s is there twice (also project %d, line %d)", at(path, lineOf(i)), same(f.Project[j], *e), j+1, lineOf(j))
		}
	}
	return f.Project, nil
}

// headerLines are the lines of the [[project]] headers, in order.
func headerLines(data []byte) []int {
	var out []int
	for i, line := range bytes.Split(data, []byte("\n")) {
		if projectHeader.Match(line) {
			out = append(out, i+1)
		}
	}
	return out
}

// at names a place in the file: path:line, or path when the line is not
// known.
func at(path string, line int) string {
	if line <= 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// keyLine is the first line that assigns key (toml keeps no positions
// for keys that parsed); 0 when not found.
func keyLine(data []byte, key string) int {
	re := regexp.MustCompile(`^\s*["']?` + regexp.QuoteMeta(key) + `["']?\s*=`)
	for i, line := range bytes.Split(data, []byte("\n")) {
		if re.Match(line) {
			return i + 1
		}
	}
	return 0
}

// same says what a and b share that two projects may not: "project NAME",
// "directory DIR", "command CMD"; "" when nothing.
func same(a, b Entry) string {
	switch {
	case a.Name == b.Name:
		return "project " + a.Name
	case a.Dir != "" && a.Dir == b.Dir:
		return "directory " + a.Dir
	case a.Remote() && slices.Equal(a.Command, b.Command):
		return "command " + a.Where()
	}
	return ""
}

// Add is entries with e at the end, refused when Check refuses e or when
// e's name, directory or command is already in the fleet.
func Add(entries []Entry, e Entry) ([]Entry, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	for _, o := range entries {
		if s := same(o, e); s != "" {
			return nil, fmt.Errorf("%s is already in the fleet (as %s)", strings.TrimPrefix(s, "project "), o.Name)
		}
	}
	return append(slices.Clip(entries), e), nil
}

// Remove is entries without the project named name; an error names the
// fleet's projects when there is none.
func Remove(entries []Entry, name string) ([]Entry, error) {
	i := slices.IndexFunc(entries, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		names := make([]string, len(entries))
		for j, e := range entries {
			names[j] = e.Name
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no project %.80q: the fleet is empty", name)
		}
		return nil, fmt.Errorf("no project %.80q in the fleet (%s)", name, strings.Join(names, ", "))
	}
	return slices.Delete(slices.Clone(entries), i, i+1), nil
}

// configHeader opens every fleet.toml Save writes.
const configHeader = `# flowdeck's fleet: the projects "flowdeck fleet" shows (docs/fleet.md).
# Written by flowdeck fleet add and rm; comments here are not kept.
`

// Save writes entries to path atomically (a temporary file renamed over
// it, mode 0600: transport commands may name hosts and users), creating its
// directory. Every entry is checked first.
func Save(path string, entries []Entry) error {
	for _, e := range entries {
		if err := e.Check(); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	b.WriteString(configHeader)
	if len(entries) > 0 {
		b.WriteString("\n")
		if err := toml.NewEncoder(&b).Encode(file{Project: entries}); err != nil {
			return fmt.Errorf("encode %s: %w", path, err)
		}
	}
	return writeAtomic(path, b.Bytes())
}

// writeAtomic replaces path with data, mode 0600 (contain.WriteAtomic: a
// reader sees the old file or the new one, never a part), creating its
// directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := contain.WriteAtomic(r, filepath.Base(path), data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
