// Package agentinit prepares a repository for coding agents that work under
// flowdeck: it creates .flow/, git-ignores the database, and merges
// flowdeck's entries into each agent's config files. Files are merged, never
// clobbered: JSON key by key, markdown between markers, and a second run
// changes nothing.
package agentinit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/model"
)

// The agents init knows.
const (
	Claude   = "claude"
	OpenCode = "opencode"
	Generic  = "generic"
)

// Agents lists them in the order their files are written.
var Agents = []string{Claude, OpenCode, Generic}

// Change is one file or directory that init creates or rewrites.
type Change struct {
	Path     string // relative to the root, slash-separated
	Old, New string // contents; Old is "" for a new file
	Exists   bool
	Dir      bool // a directory to create
	Delete   bool // a file of flowdeck's own to remove (Old is its text)
	// Target is the file written when Path is a symlink: the file it leads
	// to, relative to the root. Empty when Path is not a link.
	Target string
}

// Plan is what init would do.
type Plan struct {
	Agents  []string
	Changes []Change
	// Notes are things init left alone on purpose, for the person to read.
	Notes []string
}

// Prepare works out the changes for root without writing anything. Every
// file is read through an os.Root on root: a target that is a symlink into
// the repository is edited where it leads; one leading out of it refuses
// init with a path_escapes_project fault, before anything is written. Without
// agents it takes every agent whose files are already there (.mcp.json,
// .claude/, CLAUDE.md for Claude Code; opencode.json, .opencode/ for
// opencode), and always the generic AGENTS.md section.
func Prepare(root string, agents []string) (*Plan, error) {
	return PrepareWith(root, Options{Agents: agents})
}

// Options say what init prepares.
type Options struct {
	Agents []string
	// Workers is the client (Claude or OpenCode) whose worker and reviewer
	// agents go into .flow/config.toml; "" writes none.
	Workers string
}

// PrepareWith is Prepare with options: with Workers, it also adds that
// client's worker and reviewer agents to .flow/config.toml.
func PrepareWith(root string, opts Options) (*Plan, error) {
	agents := opts.Agents
	if opts.Workers != "" && opts.Workers != Claude && opts.Workers != OpenCode {
		return nil, fmt.Errorf("workers %q: claude or opencode", opts.Workers)
	}
	for _, a := range agents {
		if !slices.Contains(Agents, a) {
			return nil, fmt.Errorf("unknown agent %q: claude, opencode or generic", a)
		}
	}
	if len(agents) == 0 {
		agents = detect(root)
	}
	if !slices.Contains(agents, Generic) {
		agents = append(agents, Generic) // every agent reads AGENTS.md
	}
	p := &Plan{}
	for _, a := range Agents { // a stable order whatever the flags' order
		if slices.Contains(agents, a) && !slices.Contains(p.Agents, a) {
			p.Agents = append(p.Agents, a)
		}
	}
	r, err := contain.Open(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if _, err := r.Stat(".flow"); errors.Is(err, fs.ErrNotExist) {
		p.Changes = append(p.Changes, Change{Path: ".flow/", Dir: true})
	} else if err != nil {
		return nil, contain.Fault(root, err)
	}
	steps := []struct {
		agent, path string
		edit        func(old string, exists bool) (string, error)
	}{
		{"", ".gitignore", gitignore},
		{Claude, ".mcp.json", jsonFile(claudeMCP)},
		{Claude, ".claude/settings.json", jsonFile(claudeHook)},
		{Claude, "CLAUDE.md", claudeSection},
		{OpenCode, opencodeConfig(root), jsonFile(opencodeMCP)},
		{OpenCode, pluginPath, p.plugin},
		{Generic, "AGENTS.md", agentsSection},
	}
	if opts.Workers != "" {
		steps = append(steps, struct {
			agent, path string
			edit        func(old string, exists bool) (string, error)
		}{"", ProjectConfig, p.workers(opts.Workers)})
	}
	for _, s := range steps {
		if s.agent != "" && !slices.Contains(p.Agents, s.agent) {
			continue
		}
		target, err := contain.ResolveLinks(r, filepath.FromSlash(s.path))
		if _, fault := model.AsFault(err); fault && s.path == "CLAUDE.md" {
			// The person's own CLAUDE.md, kept elsewhere: only a hint.
			p.Notes = append(p.Notes, "CLAUDE.md leads outside the repository: left alone; add the line @AGENTS.md to it for Claude Code versions that do not read AGENTS.md")
			continue
		} else if err != nil {
			return nil, err
		}
		if s.path == "CLAUDE.md" && filepath.ToSlash(target) == "AGENTS.md" {
			p.Notes = append(p.Notes, "CLAUDE.md is a link to AGENTS.md: Claude Code reads flowdeck's section there")
			continue
		}
		data, err := r.ReadFile(target)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, contain.Fault(root, err)
		}
		next, err := s.edit(string(data), exists)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.path, err)
		}
		if next != string(data) || !exists {
			c := Change{Path: s.path, Old: string(data), New: next, Exists: exists}
			if target != filepath.FromSlash(s.path) {
				c.Target = filepath.ToSlash(target)
				p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink: its target %s is edited, the link stays", s.path, c.Target))
			}
			p.Changes = append(p.Changes, c)
		}
	}
	if slices.Contains(p.Agents, OpenCode) {
		p.dropOldPlugin(r)
	}
	if opts.Workers != "" {
		if ignore, err := r.ReadFile(".gitignore"); err == nil && ignoresConfig(string(ignore)) {
			p.Notes = append(p.Notes, ".gitignore keeps "+ProjectConfig+" out of git, so the team cannot share it: ignore .flow/* rather than .flow, and add the line !"+ProjectConfig)
		}
	}
	return p, nil
}

// dropOldPlugin removes the plugin that earlier versions wrote to
// .opencode/plugin/ (opencode now documents .opencode/plugins/; both would
// load), when it is still flowdeck's: never through a link, never a file
// the person changed.
func (p *Plan) dropOldPlugin(r *os.Root) {
	target, err := contain.ResolveLinks(r, filepath.FromSlash(oldPluginPath))
	if err != nil || target != filepath.FromSlash(oldPluginPath) {
		return
	}
	data, err := r.ReadFile(target)
	if err != nil || !strings.HasPrefix(string(data), pluginHeader+"\n") {
		return
	}
	p.Changes = append(p.Changes, Change{Path: oldPluginPath, Old: string(data), Exists: true, Delete: true})
	p.Notes = append(p.Notes, oldPluginPath+" moves to "+pluginPath+", where opencode looks for plugins now")
}

func detect(root string) []string {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(root, n)); err == nil {
				return true
			}
		}
		return false
	}
	var agents []string
	if has(".mcp.json", ".claude", "CLAUDE.md") {
		agents = append(agents, Claude)
	}
	if has("opencode.json", "opencode.jsonc", ".opencode") {
		agents = append(agents, OpenCode)
	}
	return agents
}

// opencodeConfig is the project's opencode config file: opencode.jsonc when
// that is the one there, else opencode.json.
func opencodeConfig(root string) string {
	if _, err := os.Stat(filepath.Join(root, "opencode.json")); err != nil {
		if _, err := os.Stat(filepath.Join(root, "opencode.jsonc")); err == nil {
			return "opencode.jsonc"
		}
	}
	return "opencode.json"
}

// Apply writes the changes under root; each file is written to a temporary
// file and renamed, so an interrupted init leaves no half file. Paths are
// resolved again, beneath root: a symlink is never replaced by a file, and
// nothing is written outside root.
func Apply(root string, changes []Change) error {
	r, err := contain.Open(root)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, c := range changes {
		if c.Dir {
			if err := r.MkdirAll(filepath.FromSlash(c.Path), 0o755); err != nil {
				return contain.Fault(root, err)
			}
			continue
		}
		target, err := contain.ResolveLinks(r, filepath.FromSlash(c.Path))
		if err != nil {
			return err
		}
		if c.Delete {
			if err := r.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return contain.Fault(root, err)
			}
			continue
		}
		if err := r.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return contain.Fault(root, err)
		}
		mode := fs.FileMode(0o644)
		if fi, err := r.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := contain.WriteAtomic(r, target, []byte(c.New), mode); err != nil {
			return err
		}
	}
	return nil
}

// Diff is the changes as one unified diff (git's a/ b/ labels).
func Diff(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		if c.Dir {
			fmt.Fprintf(&b, "mkdir %s\n", c.Path)
			continue
		}
		from, to := "a/"+c.Path, "b/"+c.Path
		if !c.Exists {
			from = "/dev/null"
		}
		if c.Delete {
			to = "/dev/null"
		}
		b.WriteString(udiff.Unified(from, to, c.Old, c.New))
	}
	return b.String()
}
