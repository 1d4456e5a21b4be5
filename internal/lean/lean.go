// Package lean is the flowdeck binary that agents call many times a
// minute. It answers `flowdeck flow status` (text or --json) and `flowdeck
// hud` (text, markdown, Claude Code's hook) from the status digest that
// every write stores beside the session (package digest), and becomes
// flowdeck-cli for everything else: execve keeps the process id, the
// standard streams, the signals and the exit code, so a caller cannot tell
// the two apart. It links no flag parser and no model: only what reading
// one bbolt key needs (encoding/json only reads the hook's input).
package lean

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/internal/rootdir"
	"github.com/flowdeck/flowdeck/termtext/ctl"
)

// What the lean binary prints: a part of the digest.
type answerKind int

const (
	statusText answerKind = iota
	statusJSON
	hudText
	hudMarkdown
	hudHook
)

// request is an invocation the digest can answer.
type request struct {
	kind answerKind
	dir  string // --dir: the project root itself; "": search from the working directory
}

// parse recognises `flow status` and `hud` with the flags they accept
// (--json, --dir, and hud's --format and --hook), in any order cobra
// accepts them, and says which part of the digest answers them. Anything
// else (another command, --full, --format json, --json=false, --, a flag
// it does not know, a malformed value) is not answered here: flowdeck-cli
// parses it and says what is wrong.
func parse(args []string) (request, bool) {
	var req request
	var words []string
	var json, hudFlags bool // hudFlags: --format or --hook, hud's own flags
	format, hook := "text", ""
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		takesValue := name == "--dir" || name == "--format" || name == "--hook"
		switch {
		case args[i] == "--json":
			json = true
			continue
		case takesValue && !hasValue:
			if i+1 >= len(args) {
				return request{}, false
			}
			i++
			value = args[i]
		case takesValue:
		case strings.HasPrefix(args[i], "-"):
			return request{}, false
		default:
			words = append(words, args[i])
			continue
		}
		switch name {
		case "--dir":
			if value == "" {
				return request{}, false
			}
			req.dir = value
		case "--format":
			format, hudFlags = value, true
		case "--hook":
			hook, hudFlags = value, true
		}
	}
	switch {
	case slices.Equal(words, []string{"flow", "status"}) && !hudFlags:
		req.kind = statusText
		if json {
			req.kind = statusJSON
		}
	case !slices.Equal(words, []string{"hud"}):
		return request{}, false
	case hook == "claude": // the hook prints text in its object, whatever --format or --json say
		req.kind = hudHook
	case hook != "" || json:
		return request{}, false
	case format == "text" || format == "":
		req.kind = hudText
	case format == "markdown":
		req.kind = hudMarkdown
	default:
		return request{}, false
	}
	return req, true
}

// ExitInternal is flowdeck's exit code for a failure that is not the
// caller's: here, output that could not be written, or no flowdeck-cli.
const ExitInternal = 3

// Main runs the lean binary on argv (its name first) and returns the exit
// code: it answers from the digest when it can, and otherwise becomes
// flowdeck-cli (so it returns only when that cannot start).
func Main(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args := argv[1:]
	req, ok := parse(args)
	if ok && req.kind != statusText && req.kind != statusJSON && launchedAgent() {
		// The digest holds the person's HUD; an agent flowdeck launched
		// sees its own feature and next step, which flowdeck-cli draws.
		ok = false
	}
	if !ok {
		return forward(argv, "", stdout, stderr)
	}
	start := req.dir
	if req.kind == hudHook && req.dir == "" {
		// The hook's JSON on stdin names the agent's working directory,
		// where the project search starts. Read here, stdin is gone for
		// flowdeck-cli, so a forwarded hook starts it there instead.
		start = HookCwd(stdin)
	}
	if code, ok := answer(req, start, stdout); ok {
		return code
	}
	chdir := ""
	if req.dir == "" {
		chdir = start
	}
	return forward(argv, chdir, stdout, stderr)
}

// answer writes the answer to req on stdout when the status digest of the
// project holds it and returns the exit code; ok is false when it answered
// nothing. It answers nothing it is not sure of: no project database, an
// old one without a digest, a digest behind the database's change counter
// (a write that did not render it), a writer holding the lock, damage.
// flowdeck-cli handles those and says what is wrong.
func answer(req request, start string, stdout io.Writer) (code int, ok bool) {
	if !lockTimeoutValid() {
		return 0, false
	}
	root, err := rootdir.Resolve(start, req.dir != "")
	if err != nil {
		return 0, false
	}
	d, err := digest.Read(root)
	if err != nil {
		return 0, false
	}
	var out []byte
	switch req.kind {
	case statusText:
		out = d.StatusText
	case statusJSON:
		out = d.StatusJSON
	default:
		hud := map[answerKind]digest.Stamped{hudText: d.HUDText, hudMarkdown: d.HUDMarkdown, hudHook: d.HUDHook}[req.kind]
		if out, ok = hud.Stamp(time.Now()); !ok {
			return 0, false
		}
	}
	if len(out) == 0 {
		return 0, false // a status too large to keep in the digest
	}
	// The digest was sanitised when flowdeck wrote it, but the file is in
	// the project, where an agent can write: what is not inert text is not
	// printed here. flowdeck-cli prints the state sanitised instead.
	if !ctl.Inert(out, false) {
		return 0, false
	}
	if _, err := stdout.Write(out); err != nil && (req.kind == statusJSON || req.kind == hudHook) {
		return ExitInternal, true // as flowdeck-cli: text ignores a failed write, JSON does not
	}
	return 0, true
}

// hookInputMax bounds what is read of a hook's stdin: its JSON carries
// the prompt, which flowdeck does not need whole.
const hookInputMax = 1 << 20

// HookCwd is the cwd of the JSON that Claude Code gives a hook on stdin,
// where the project search starts; "" when in is a terminal or holds no
// such JSON (the search then starts at the working directory). flowdeck-cli
// reads the hook's input with it too.
func HookCwd(in io.Reader) string {
	if in == nil {
		return ""
	}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(in, hookInputMax))
	var hook struct {
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(data, &hook) != nil {
		return ""
	}
	return hook.Cwd
}

// lockTimeoutValid: flowdeck-cli refuses a malformed
// $FLOWDECK_LOCK_TIMEOUT, so the lean binary must not answer past it.
func lockTimeoutValid() bool {
	v := os.Getenv("FLOWDECK_LOCK_TIMEOUT")
	if v == "" {
		return true
	}
	_, err := time.ParseDuration(v)
	return err == nil
}

// JSONRequested reports whether --json is among args (before a "--"), as
// flowdeck-cli reads it for errors found before its flags are parsed.
func JSONRequested(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

// forward becomes flowdeck-cli, in directory chdir when it is not "".
// When that cannot start, it says so: a line on stderr, and with --json the
// one object on stdout that --json promises, in the shape of flowdeck's
// other internal failures.
func forward(argv []string, chdir string, stdout, stderr io.Writer) int {
	err := Forward(argv, chdir)
	// The message holds paths (this executable's, $PATH's): keep the
	// terminal safe.
	msg := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || ctl.IsC1(r) || ctl.IsBidi(r) {
			return '?'
		}
		return r
	}, err.Error())
	fmt.Fprintf(stderr, "flowdeck: %s\n", msg)
	if JSONRequested(argv[1:]) {
		obj := map[string]any{"ok": false, "error": map[string]string{"code": "internal", "message": msg}}
		if b, err := json.MarshalIndent(obj, "", "  "); err == nil {
			stdout.Write(append(b, '\n'))
		}
	}
	return ExitInternal
}

// launchedAgent reports whether flowdeck launched this process's agent
// (it named the agent or its feature in the environment).
func launchedAgent() bool {
	return os.Getenv("FLOWDECK_AGENT") != "" || os.Getenv("FLOWDECK_FEATURE") != ""
}
