package agentinit

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// ignored are what of .flow/ stays out of git, being machine-local: the
// database (the sessions and all run output, large), the lock files of
// runs, flow runs and git actions, and the agents' worktrees. The rest is
// meant to be committed: the sessions' docs (for reading) and the
// project's flows and patterns.
var ignored = []string{"/.flow/flowdeck.db", "/.flow/flowdeck.db.lock", "/.flow/git.lock", "/.flow/runs/", "/.flow/flowruns/", "/.flow/worktrees/"}

// IgnoreComment heads the lines init adds to .gitignore.
const IgnoreComment = "# flowdeck: its database, locks and agents' worktrees (flowdeck init); the rest of .flow/ is meant to be committed"

func gitignore(old string, _ bool) (string, error) {
	var missing []string
	for _, want := range ignored {
		if !ignoresFile(old, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) == 0 {
		return old, nil
	}
	var b strings.Builder
	b.WriteString(old)
	if old != "" && !strings.HasSuffix(old, "\n") {
		b.WriteByte('\n')
	}
	if old != "" {
		b.WriteByte('\n')
	}
	b.WriteString(IgnoreComment + "\n")
	for _, m := range missing {
		b.WriteString(m + "\n")
	}
	return b.String(), nil
}

// ignoresFile reports whether a line of the .gitignore already covers path
// (written as /dir/file): the path itself, or .flow as a whole.
func ignoresFile(gitignore, path string) bool {
	bare := strings.TrimSuffix(path, "/") // a directory's name covers it too
	covers := map[string]bool{
		path: true, strings.TrimPrefix(path, "/"): true, bare: true, strings.TrimPrefix(bare, "/"): true,
		".flow": true, ".flow/": true, "/.flow": true, "/.flow/": true, ".flow/*": true, "/.flow/*": true,
		"/.flow/flowdeck.db*": true, ".flow/flowdeck.db*": true,
	}
	for _, line := range strings.Split(gitignore, "\n") {
		if covers[strings.TrimSpace(line)] {
			return true
		}
	}
	return false
}

// jsonFile merges what add puts into a JSON config file: keys the file
// lacks are added, nothing the user set is changed, and a file that needs
// nothing is left byte for byte as it was. A JSONC file (comments, trailing
// commas) keeps them: the additions are grafted onto it in place.
func jsonFile(add func(*object) (bool, error)) func(string, bool) (string, error) {
	return func(old string, exists bool) (string, error) {
		doc := newObject()
		var tree *hujson.Value
		if exists && strings.TrimSpace(old) != "" {
			var err error
			if doc, tree, err = readJSONC([]byte(old)); err != nil {
				return "", fmt.Errorf("not JSON or JSONC (%v); fix it or add flowdeck's entry by hand (see flowdeck init --dry-run on an empty directory)", err)
			}
		}
		var before *object
		if tree != nil {
			before, _, _ = readJSONC([]byte(old)) // a copy for graft to compare with
		}
		changed, err := add(doc)
		if err != nil {
			return "", err
		}
		if !changed && exists {
			return old, nil
		}
		if tree != nil {
			graft(tree, before, doc, "", unitOf(old))
			return string(tree.Pack()), nil
		}
		return string(encode(doc)), nil
	}
}

// claudeMCP adds the server to Claude Code's project MCP config.
// alwaysLoad keeps its tools in the model's context: without it Claude Code
// (2.1.330) hides them behind its tool search, and the model must search
// before it can call flow_status.
func claudeMCP(doc *object) (bool, error) {
	return mergeMissing(doc, obj("mcpServers", obj("flowdeck", obj(
		"type", "stdio", "command", "flowdeck", "args", []any{"mcp"}, "alwaysLoad", true)))), nil
}

// The Claude Code hooks. Each reads the hook's JSON on stdin and finds the
// project from its cwd, as every other entry point does; --hook makes sure
// a failure never blocks the prompt or the end of a turn.
const (
	hudCommand  = "flowdeck hud --hook claude"
	idleCommand = "flowdeck agent-event idle --agent claude --hook claude"
	// oldHUDCommand is what earlier versions of init wrote; it is
	// replaced by hudCommand.
	oldHUDCommand = `flowdeck --dir "$CLAUDE_PROJECT_DIR" hud`
)

// claudeHook adds a UserPromptSubmit hook that puts the HUD in the context
// and a Stop hook that records that the agent is idle, unless hooks
// already run them.
func claudeHook(doc *object) (bool, error) {
	hooks, err := child(doc, "hooks")
	if err != nil {
		return false, err
	}
	hud, err := addHook(hooks, "UserPromptSubmit", hudCommand, " hud")
	if err != nil {
		return false, err
	}
	idle, err := addHook(hooks, "Stop", idleCommand, " agent-event")
	return hud || idle, err
}

// addHook adds command to hooks[event] unless a flowdeck command containing
// verb is there; flowdeck's own earlier command is brought up to date.
func addHook(hooks *object, event, command, verb string) (bool, error) {
	v, ok := hooks.get(event)
	if !ok {
		v = []any{}
	}
	list, isList := v.([]any)
	if !isList {
		return false, fmt.Errorf("hooks.%s is not a list", event)
	}
	for _, entry := range list {
		e, ok := entry.(*object)
		if !ok {
			continue
		}
		if h := flowdeckHook(e, verb); h != nil {
			if c, _ := h.get("command"); c == oldHUDCommand {
				h.set("command", command)
				return true, nil
			}
			return false, nil
		}
	}
	hooks.set(event, append(list, obj("hooks", []any{obj("type", "command", "command", command)})))
	return true, nil
}

// flowdeckHook is the hook of a matcher entry that runs flowdeck with verb,
// or nil.
func flowdeckHook(entry *object, verb string) *object {
	hs, _ := entry.get("hooks")
	list, _ := hs.([]any)
	for _, h := range list {
		if o, ok := h.(*object); ok {
			c, _ := o.get("command")
			if s, ok := c.(string); ok && strings.Contains(s, "flowdeck") && strings.Contains(s, verb) {
				return o
			}
		}
	}
	return nil
}

// child returns doc[key] as an object, creating it when missing.
func child(doc *object, key string) (*object, error) {
	v, ok := doc.get(key)
	if !ok {
		o := newObject()
		doc.set(key, o)
		return o, nil
	}
	o, isObj := v.(*object)
	if !isObj {
		return nil, fmt.Errorf("%q is not an object", key)
	}
	return o, nil
}

// opencodeMCP adds the server to opencode's config: under mcp, as opencode
// 1.x reads it ({"type": "local", "command": [...], "enabled": true}), or
// under mcp.servers when the file already uses opencode 2's shape (which
// has no "enabled").
func opencodeMCP(doc *object) (bool, error) {
	server := obj("type", "local", "command", []any{"flowdeck", "mcp"}, "enabled", true)
	if mcp, ok := doc.get("mcp"); ok {
		if m, ok := mcp.(*object); ok {
			if servers, ok := m.get("servers"); ok {
				if _, isObj := servers.(*object); isObj {
					return mergeMissing(doc, obj("mcp", obj("servers", obj("flowdeck", obj("type", "local", "command", []any{"flowdeck", "mcp"}))))), nil
				}
			}
		}
	}
	add := obj("mcp", obj("flowdeck", server))
	if len(doc.keys) == 0 {
		add = obj("$schema", "https://opencode.ai/config.json", "mcp", add.vals["mcp"])
	}
	return mergeMissing(doc, add), nil
}

//go:embed opencode_plugin.ts
var pluginSource string

// Where the plugin goes: opencode loads every file of .opencode/plugins/;
// earlier versions of init wrote to .opencode/plugin/.
const (
	pluginPath    = ".opencode/plugins/flowdeck.ts"
	oldPluginPath = ".opencode/plugin/flowdeck.ts"
)

// pluginHeader is the plugin's first line: while a file starts with it, the
// file is flowdeck's to rewrite.
var pluginHeader, _, _ = strings.Cut(pluginSource, "\n")

// plugin writes the opencode plugin, or leaves a file that the person made
// their own alone.
func (p *Plan) plugin(old string, exists bool) (string, error) {
	if exists && old != pluginSource && !strings.HasPrefix(old, pluginHeader+"\n") {
		p.Notes = append(p.Notes, pluginPath+" was edited by hand: left as it is (delete it to get flowdeck's again)")
		return old, nil
	}
	return pluginSource, nil
}

// The AGENTS.md section sits between these markers; init replaces what is
// between them and nothing else.
const (
	beginMarker = "<!-- flowdeck:begin (written by flowdeck init; edits between these markers are replaced) -->"
	endMarker   = "<!-- flowdeck:end -->"
	markerStem  = "<!-- flowdeck:begin"
)

const agentsText = `## Working under flowdeck

This repository's work is planned and tracked with flowdeck: a planning
session of features with dependencies, validation evidence and reviews. A
person supervises it in the flowdeck cockpit.

- Run every build and test through flowdeck, naming the feature you work on,
  so that its result becomes observed validation evidence:
  ` + "`flowdeck run --feature ID -- CMD [ARG...]`" + `, e.g.
  ` + "`flowdeck run --feature token-store -- go test ./auth/...`" + `.
  Other commands: ` + "`flowdeck run -- CMD`" + `. Search earlier output with
  ` + "`flowdeck recall QUERY`" + ` instead of running a command again.
- **If ` + "`$FLOWDECK_AGENT`" + ` is set in your environment, flowdeck launched you**
  as a worker (or reviewer) on one feature, ` + "`$FLOWDECK_FEATURE`" + `: flowdeck
  drives the session. Do the step your prompt asks, in your working
  directory, and answer it as the prompt says; do not start, review,
  complete or reset features, and ignore the steps the HUD or a result
  suggests for other features. The rest of this list is for an agent the
  person works with directly.
- Drive the session with the flow tools of the ` + "`flowdeck`" + ` MCP server
  (flow_status, flow_run_start, run, flow_review_record_feature,
  flow_run_complete_feature, recall, ...) or with the CLI and ` + "`--json`" + `
  (` + "`flowdeck --json flow status`" + `).
- Start with flow_status; every result says ` + "`next_command`" + `. A refused
  action returns ` + "`error.code`" + ` and ` + "`error.recovery`" + `: do what the
  recovery says instead of retrying.
- Plan approval, the final review, the flows' decisions and land are the
  person's: relay only what the person told you (` + "`person_decision`" + ` refuses
  them to agents flowdeck launched, and to every agent over MCP with
  ` + "`[session] person_decisions = \"cockpit\"`" + `).
- Never edit ` + "`.flow/`" + ` by hand.
`

func agentsSection(old string, _ bool) (string, error) {
	return mdSection(old, beginMarker, endMarker, agentsText)
}

// The CLAUDE.md section imports AGENTS.md, for Claude Code versions that do
// not read AGENTS.md themselves; its own markers keep it apart from the
// AGENTS.md section when both files are one.
const (
	claudeBegin = "<!-- flowdeck-claude:begin (written by flowdeck init; edits between these markers are replaced) -->"
	claudeEnd   = "<!-- flowdeck-claude:end -->"
	claudeText  = "@AGENTS.md\n"
)

// claudeSection adds the import unless CLAUDE.md already has one of its
// own.
func claudeSection(old string, _ bool) (string, error) {
	if !strings.Contains(old, "<!-- flowdeck-claude:begin") {
		for _, line := range strings.Split(old, "\n") {
			if strings.TrimSpace(line) == "@AGENTS.md" || strings.TrimSpace(line) == "@./AGENTS.md" {
				return old, nil
			}
		}
	}
	return mdSection(old, claudeBegin, claudeEnd, claudeText)
}

// mdSection puts text between the markers begin and end: in place when old
// has them (the stem of begin, without its note, is enough), else at the
// end. What is outside the markers stays as it was.
func mdSection(old, begin, end, text string) (string, error) {
	stem, _, _ := strings.Cut(begin, " (")
	section := begin + "\n" + text + end + "\n"
	start := strings.Index(old, stem)
	if start < 0 {
		if old == "" {
			return section, nil
		}
		sep := "\n"
		if !strings.HasSuffix(old, "\n") {
			sep = "\n\n"
		}
		return old + sep + section, nil
	}
	stop := strings.Index(old[start:], end)
	if stop < 0 {
		return "", fmt.Errorf("has %q without %q: fix the markers", stem, end)
	}
	stop += start + len(end)
	if stop < len(old) && old[stop] == '\n' {
		stop++
	}
	return old[:start] + section + old[stop:], nil
}
