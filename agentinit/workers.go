package agentinit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/flowdeck/flowdeck/config"
)

// ProjectConfig is the project's flowdeck config, where --workers writes
// the agents.
const ProjectConfig = config.ProjectFile

// workersHeader opens a .flow/config.toml that init creates.
const workersHeader = `# flowdeck's agents for this repository (flowdeck init --workers), meant
# to be committed: no secrets here. The agents inherit flowdeck's
# environment (the model's key, HOME); an env value may name a variable as
# "${NAME}". flowdeck config show prints what is in effect and from where.
`

// workerAgents are the [agents.worker] and [agents.reviewer] tables that
// --workers writes, by client: each runs the client unchanged, with the
// permissions its role needs and no prompt (nobody answers one). The
// README's examples are these, and TestInitWorkers* run them.
var workerAgents = map[string][2]string{
	Claude: {`# The worker builds a feature in its worktree: acceptEdits lets it edit
# files below its working directory and nowhere else; Bash runs any command
# (Claude Code matches commands by prefix, so it cannot keep them inside the
# worktree: sandbox = true can), but git push is refused.
[agents.worker]
command = ["claude", "-p", "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--disallowedTools", "Bash(git push:*)"]
timeout = "30m"
`, `# The reviewer reads: Read, Grep and Glob are its only tools, and what
# would need a permission (a file outside its directory) is refused.
[agents.reviewer]
command = ["claude", "-p", "--permission-mode", "dontAsk", "--tools", "Read,Grep,Glob"]
timeout = "15m"
`},
	OpenCode: {`# The worker builds a feature in its worktree. opencode merges
# OPENCODE_PERMISSION over its own permission settings: it reads, edits and
# runs commands; a path outside its directory, in a file tool or in a
# command's arguments, is refused (external_directory), and so is the web.
[agents.worker]
command = ["opencode", "run"]
timeout = "30m"
[agents.worker.env]
OPENCODE_PERMISSION = '{"read": "allow", "edit": "allow", "bash": "allow", "external_directory": "deny", "webfetch": "deny", "websearch": "deny"}'
`, `# The reviewer reads: its tools are read, grep, glob and list; editing,
# commands, subagents, the web and other directories are refused.
[agents.reviewer]
command = ["opencode", "run"]
timeout = "15m"
[agents.reviewer.env]
OPENCODE_PERMISSION = '{"read": "allow", "grep": "allow", "glob": "allow", "list": "allow", "edit": "deny", "bash": "deny", "task": "deny", "webfetch": "deny", "websearch": "deny", "external_directory": "deny"}'
`},
}

// workers is the edit of .flow/config.toml for client's worker and
// reviewer: each is appended unless the file defines that agent already
// (yours stays, with a note), so a second init changes nothing.
func (p *Plan) workers(client string) func(old string, exists bool) (string, error) {
	return func(old string, exists bool) (string, error) {
		var tree struct {
			Agents map[string]any `toml:"agents"`
		}
		if _, err := toml.Decode(old, &tree); err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				return "", fmt.Errorf("line %d: %s; fix it and run init again", pe.Position.Line, pe.Message)
			}
			return "", err
		}
		text := old
		if !exists || strings.TrimSpace(old) == "" {
			text = workersHeader
		}
		for i, role := range []string{"worker", "reviewer"} {
			if _, ok := tree.Agents[role]; ok {
				if !strings.Contains(old, workerAgents[client][i]) {
					p.Notes = append(p.Notes, fmt.Sprintf("%s defines agents.%s already: left as it is", ProjectConfig, role))
				}
				continue
			}
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			text += "\n" + workerAgents[client][i]
		}
		return text, nil
	}
}

// ignoresConfig reports whether a .gitignore keeps .flow/config.toml out of
// git: it ignores the directory .flow (no later line can take a file in it
// back), or the file and no later line takes it back.
func ignoresConfig(gitignore string) bool {
	dir, file := false, false
	for _, line := range strings.Split(gitignore, "\n") {
		switch strings.TrimSpace(line) {
		case ".flow", ".flow/", "/.flow", "/.flow/":
			dir = true
		case ".flow/*", "/.flow/*", ProjectConfig, "/" + ProjectConfig:
			file = true
		case "!" + ProjectConfig, "!/" + ProjectConfig:
			file = false
		}
	}
	return dir || file
}
