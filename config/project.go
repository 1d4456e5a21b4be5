package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/flowdeck/flowdeck/patterns"
)

// ProjectFile is the project's own configuration, relative to its root:
// meant to be committed, so that a team shares its agents.
const ProjectFile = ".flow/config.toml"

// personal are the settings of a person, not of a repository: a project
// file that sets them is told so and they are ignored.
var personal = []string{"bell", "theme", "actor", "mouse", "keys"}

// Merge returns user with the project's file (data, read from path) merged
// over it:
//
//   - [run] and [session] key by key: a key the project sets wins;
//     [run.env] key by key too; run.redact is the user's rules and the
//     project's (a project adds secrets to hide, it cannot drop the user's).
//   - [agents.NAME]: the project's table replaces the user's agent of the
//     same name as a whole (no field of the user's survives); the user's
//     other agents stay.
//   - bell, theme, actor, mouse and [keys] are the person's: ignored here,
//     with an error naming the line.
//
// A file that does not parse, or that holds a literal that the redaction
// rules (built-in and the user's run.redact) take for a secret, is not used
// at all: the errors name the file and line. Other bad values are dropped
// one by one, as Load does.
func Merge(user Config, path string, data []byte) (Config, []error) {
	var p Config
	md, err := toml.Decode(string(data), &p)
	if err != nil {
		return user, []error{parseError(path, err)}
	}
	// The lines are for errors only: found when one needs them (keyLines
	// compiles two regexps a key, at the start of every command).
	lines := sync.OnceValue(func() map[string]int { return keyLines(data, md.Keys()) })
	if errs := secrets(user.Run.Redact, path, data, lines); len(errs) > 0 {
		return user, errs
	}
	var errs []error
	for _, k := range md.Undecoded() {
		errs = append(errs, fmt.Errorf("%s:%d: unknown setting %q", path, lines()[k.String()], k.String()))
	}
	for _, k := range personal {
		if md.IsDefined(k) {
			errs = append(errs, fmt.Errorf("%s:%d: %s is a personal setting: set it in your own config (%s); ignored in a project's", path, lines()[k], k, DefaultPath()))
		}
	}
	errs = append(errs, checkRun(&p, path, data)...)
	errs = append(errs, checkSession(&p, path, data)...)
	errs = append(errs, checkAgents(&p, path, data)...)

	c := user
	c.ProjectPath, c.projectRaw = path, data
	r := &c.Run
	for _, f := range []struct {
		key       string
		dst, from *string
	}{{"timeout", &r.Timeout, &p.Run.Timeout}, {"memory", &r.Memory, &p.Run.Memory}, {"retain", &r.Retain, &p.Run.Retain}, {"stall", &r.Stall, &p.Run.Stall}} {
		if md.IsDefined("run", f.key) {
			*f.dst = *f.from
		}
	}
	if md.IsDefined("run", "pids") {
		r.Pids = p.Run.Pids
	}
	if md.IsDefined("run", "cpu") {
		r.CPU = p.Run.CPU
	}
	if len(p.Run.Env) > 0 {
		env := make(map[string]string, len(r.Env)+len(p.Run.Env))
		for k, v := range r.Env {
			env[k] = v
		}
		for k, v := range p.Run.Env {
			env[k] = v
		}
		r.Env = env
	}
	if p.Run.RedactErr != nil {
		r.RedactErr = p.Run.RedactErr // fail closed, as for the user's
	} else if len(p.Run.Redact) > 0 {
		r.Redact = append(slices.Clone(r.Redact), p.Run.Redact...)
	}
	if md.IsDefined("session", "max_parallel") {
		c.Session.MaxParallel = p.Session.MaxParallel
	}
	if md.IsDefined("agents") {
		agents := make(map[string]Agent, len(user.Agents)+len(p.Agents))
		for name, a := range user.Agents {
			agents[name] = a
		}
		for _, k := range md.Keys() {
			if len(k) == 2 && k[0] == "agents" {
				// Replaced as a whole; one dropped as broken leaves the
				// role to the person, as its error says.
				if a, ok := p.Agents[k[1]]; ok {
					mine, ok := user.Agents[k[1]]
					if !ok {
						// The project's worker-2 keeps the sandbox you gave
						// the role's agents.
						mine = user.Agents[AgentRole(k[1])]
					}
					agents[k[1]] = keepSandbox(a, mine, func(msg string) {
						errs = append(errs, fmt.Errorf("%s:%d: agents.%s: %s", path, tableLine(data, "agents."+k[1]), k[1], msg))
					})
				} else {
					delete(agents, k[1])
				}
			}
		}
		c.Agents = agents
	}
	return c, errs
}

// parseError names the file and line of a TOML syntax error.
func parseError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
}

// secrets finds the literals of a project file that look like secrets by
// the redaction rules (the built-ins and extra), and comments that hold
// one: a committed file must not. A value's ${NAME} references are not
// literals and are left out.
func secrets(extra []string, path string, data []byte, lines func() map[string]int) []error {
	red, err := patterns.NewRedactor(extra)
	if err != nil {
		red, _ = patterns.NewRedactor(nil) // the user's broken rules are reported elsewhere
	}
	var tree map[string]any
	if _, err := toml.Decode(string(data), &tree); err != nil {
		return nil // Decode into the struct parsed it: cannot happen
	}
	var errs []error
	found := func(k toml.Key, line int) {
		errs = append(errs, fmt.Errorf("%s:%d: %s looks like a secret, which a committed file must not hold: "+
			`take it from the environment (an agent's env value may be "${NAME}"); the project's configuration is not used until then`, path, line, k))
	}
	walk(tree, nil, func(k toml.Key, v any) {
		switch v := v.(type) {
		case string:
			if secretValue(red, k[len(k)-1], v) {
				found(k, lines()[k.String()])
			}
		case []any:
			var words []string
			for _, w := range v {
				if s, ok := w.(string); ok {
					words = append(words, refs().ReplaceAllString(s, ""))
				}
			}
			if !slices.Equal(red.Argv(words), words) {
				found(k, lines()[k.String()])
			}
		}
	})
	for i, l := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") && red.Command(t) != t {
			errs = append(errs, fmt.Errorf("%s:%d: this comment looks like it holds a secret, which a committed file must not; the project's configuration is not used until then", path, i+1))
		}
	}
	return errs
}

// secretValue reports whether value, set as key, is a secret by red's
// rules: alone, or as the assignment key=value (which catches API_KEY=…).
func secretValue(red *patterns.Redactor, key, value string) bool {
	v := refs().ReplaceAllString(value, "")
	if strings.TrimSpace(v) == "" {
		return false
	}
	line := key + "=" + v
	return red.Command(v) != v || red.Command(line) != line
}

// walk calls fn for every value of tree that is not a table, with its key.
func walk(tree map[string]any, prefix toml.Key, fn func(toml.Key, any)) {
	for k, v := range tree {
		key := append(slices.Clone(prefix), k)
		if sub, ok := v.(map[string]any); ok {
			walk(sub, key, fn)
			continue
		}
		fn(key, v)
	}
}

// keepSandbox is the project's agent a with the sandbox the person's own
// config gives that agent (user): the project file is in the repository,
// where agents write, so it may ask for a sandbox but never drop the
// person's, nor widen where a sandboxed agent may read or write
// (sandbox_paths is the person's alone; a project's is reported and
// ignored).
func keepSandbox(a, user Agent, report func(string)) Agent {
	if len(a.SandboxPaths.Read) > 0 || len(a.SandboxPaths.Write) > 0 {
		report("sandbox_paths is a personal setting: set it in your own config; ignored in a project's")
	}
	a.SandboxPaths = user.SandboxPaths
	if user.Sandbox && !a.Sandbox {
		report("sandbox = true in your own config stays: a project's config cannot drop it")
		a.Sandbox = true
	}
	return a
}
