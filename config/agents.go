package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/flowdeck/flowdeck/internal/lazyre"
)

// Agent is an [agents.ROLE] table: the command that answers a role's flow
// steps (planner, worker, reviewer, or any role a flow names).
//
//	[agents.worker]
//	command = ["claude", "-p"]
//	prompt = "stdin"            # stdin (default), arg (last argument) or file ({prompt_file} in command, else appended)
//	env = { CLAUDE_MODEL = "sonnet", ANTHROPIC_API_KEY = "${WORKER_KEY}" }
//	timeout = "30m"
//	limits = { memory = "4G", pids = 512, cpu = 2.0 }
//	sandbox = true              # run under bubblewrap: only its worktree writable
//	sandbox_paths = { read = ["~/tools"], write = ["~/.cache/pip"] }
type Agent struct {
	Command []string          `toml:"command"`
	Prompt  string            `toml:"prompt"`
	Env     map[string]string `toml:"env"`
	Timeout string            `toml:"timeout"`
	Limits  AgentLimits       `toml:"limits"`
	// Sandbox runs the agent under bubblewrap (see internal/sandbox).
	Sandbox      bool         `toml:"sandbox"`
	SandboxPaths SandboxPaths `toml:"sandbox_paths"`
}

// SandboxPaths are paths a sandboxed agent gets besides its worktree and
// its client's defaults: "~/…" in the person's home, absolute, or relative
// to the project root.
type SandboxPaths struct {
	Read  []string `toml:"read"`
	Write []string `toml:"write"`
}

// AgentLimits are the isolator limits of an agent's runs.
type AgentLimits struct {
	Memory string  `toml:"memory"`
	Pids   int     `toml:"pids"`
	CPU    float64 `toml:"cpu"`
}

// Prompt delivery modes.
const (
	PromptStdin = "stdin"
	PromptArg   = "arg"
	PromptFile  = "file"
)

// AgentTimeout is the agent's timeout (0 = none).
func (a Agent) AgentTimeout() time.Duration {
	d, _ := time.ParseDuration(a.Timeout)
	return d
}

// checkAgents drops agent tables that cannot work and says why.
func checkAgents(c *Config, path string, data []byte) []error {
	var errs []error
	for role, a := range c.Agents {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s:%d: agents.%s: %s; the role falls back to the person", path, tableLine(data, "agents."+role), role, fmt.Sprintf(format, args...)))
			delete(c.Agents, role)
		}
		switch {
		case len(a.Command) == 0 || a.Command[0] == "":
			bad("command is empty")
			continue
		case a.Prompt != "" && a.Prompt != PromptStdin && a.Prompt != PromptArg && a.Prompt != PromptFile:
			bad("prompt = %q: use stdin, arg or file", a.Prompt)
			continue
		}
		if k := badEnv(a.Env); k != "" {
			bad("env %s = %q: %s", k, a.Env[k], checkRefs(a.Env[k]))
			continue
		}
		if a.Timeout != "" {
			if _, err := time.ParseDuration(a.Timeout); err != nil {
				bad("timeout = %q: use a duration like 30m", a.Timeout)
				continue
			}
		}
		if a.Limits.Memory != "" {
			if _, err := ParseBytes(a.Limits.Memory); err != nil {
				bad("limits.memory = %q: %v", a.Limits.Memory, err)
				continue
			}
		}
		if p := badSandboxPath(a.SandboxPaths); p != "" {
			bad("sandbox_paths: %q: use ~/PATH, an absolute path, or one relative to the project", p)
			continue
		}
		if a.Prompt == "" {
			a.Prompt = PromptStdin
			c.Agents[role] = a
		}
	}
	return errs
}

// badSandboxPath is the first sandbox path that names nothing usable: an
// empty one, or ~user/… (whose home is not the person's).
func badSandboxPath(sp SandboxPaths) string {
	for _, p := range append(append([]string(nil), sp.Read...), sp.Write...) {
		if strings.TrimSpace(p) == "" || strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
			return p
		}
	}
	return ""
}

// badEnv is the first env key whose value has a broken reference, "" when
// none.
func badEnv(env map[string]string) string {
	for k, v := range env {
		if checkRefs(v) != "" {
			return k
		}
	}
	return ""
}

// tableLine is the line of a [table] header, 0 when not found.
func tableLine(data []byte, table string) int {
	re := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(table) + `\s*\]`)
	for i, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

// refs finds the ${NAME} references of an env value.
var refs = lazyre.New(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// checkRefs says what is wrong with value's references: a "${" that does
// not open a ${NAME}. "" when none.
func checkRefs(value string) string {
	if strings.Contains(refs().ReplaceAllString(value, ""), "${") {
		return "a ${ that is not ${NAME}"
	}
	return ""
}

// Environ is the agent's env with each ${NAME} replaced by lookup's value
// of NAME (flowdeck's environment), so that a committed config names a
// secret without holding it. A variable that is not set is an error naming
// the agent and key: the agent would otherwise start without its key.
func (a Agent) Environ(role string, lookup func(string) (string, bool)) (map[string]string, error) {
	out := make(map[string]string, len(a.Env))
	for k, v := range a.Env {
		var missing []string
		out[k] = refs().ReplaceAllStringFunc(v, func(ref string) string {
			name := ref[2 : len(ref)-1]
			val, ok := lookup(name)
			if !ok {
				missing = append(missing, name)
			}
			return val
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("agents.%s: env %s = %q: %s is not set in flowdeck's environment", role, k, v, strings.Join(missing, ", "))
		}
	}
	return out, nil
}

// AgentRole is the role an agent name belongs to: "worker" for a crew's
// worker-2 (a role, a dash and a number), else the name itself. An
// [agents.worker-2] table configures that one agent of the role; the
// others keep [agents.worker].
func AgentRole(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return name
		}
	}
	return name[:i]
}
