package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/flowdeck/flowdeck/internal/hostile"
)

// ptyRun runs the real binary on a pseudo-terminal, as a person would, and
// returns everything the terminal received.
func ptyRun(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "NO_COLOR=", "FLOWDECK_ACTOR=agent")
	cmd.Dir = dir
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	_, err = io.Copy(&out, f)
	if err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatalf("%v: %v", args, err)
	}
	cmd.Wait()
	return out.Bytes()
}

// hostileProject is a git repository whose session, plan, notes, findings,
// evidence, flow file, command output and file names all carry the corpus.
func hostileProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	c := argCorpus
	// A file whose name is hostile (a name cannot hold / or NUL).
	name := strings.NewReplacer("/", "", "\x00", "").Replace("evil" + c)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(hostile.Corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(map[string]any{
		"summary": c, "overview": c, "requirements": []string{c}, "decisions": []string{c},
		"features": []map[string]any{
			{"id": "evil", "title": c, "summary": c, "files": []string{c}, "verification": []string{"printf '%s' " + shellQuote(c)}},
			{"id": "next", "title": c, "depends_on": []string{"evil"}},
		},
	})
	planFile := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planFile, plan, 0o644); err != nil {
		t.Fatal(err)
	}
	flowFile := "---\nliterate: true\ndescription: \"" + yamlEscape(c) + "\"\n---\n\n# " + c + "\n\n" +
		"```yaml {config}\nstep: \"" + yamlEscape(c) + "\"\ndecision:\n  prompt: \"" + yamlEscape(c) + "\"\n  options:\n    - id: go\nnext: done\n```\n\n" + c + "\n\n---\n\n" +
		"```yaml {config}\nstep: done\nstop: true\n```\n\nend\n"
	os.MkdirAll(filepath.Join(dir, ".flow", "flows"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".flow", "flows", "evil.md"), []byte(flowFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"flow", "plan", "start", c},
		{"flow", "plan", "apply", planFile},
		{"flow", "plan", "approve"},
		{"flow", "run", "start", "evil"},
		{"flow", "note", c},
		{"flow", "validate", "evil", "--status", "passed", "--scope", "targeted", "--command", c, "--summary", c},
		{"flow", "review", "evil", "--decision", "needs_fix", "--finding", c},
		{"run", "--", "printf", "%s", c},
		{"run", "--", "ls", "-1", "--quoting-style=literal"},
		{"flows", "run", "evil", "--no-wait"},
	} {
		ptyRun(t, dir, args...) // setup: checked below with the rest
	}
	return dir
}

// argCorpus is the corpus as an argument can carry it (no NUL); files and
// command output carry the whole corpus.
var argCorpus = strings.ReplaceAll(hostile.Corpus, "\x00", "")

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// yamlEscape writes s for a YAML double-quoted scalar: YAML refuses raw
// controls, so every rune that is not plainly printable is a \u escape.
func yamlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r >= 0x7f && r < 0xa0 || r > 0x2000 && r < 0x2100 || r == 0x061c:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestHostileCorpusNeverReachesTheTerminal runs every human command of the
// real binary under a pty on a project whose every field an agent, a flow
// file or a command can write holds the corpus: the terminal receives no
// ESC but flowdeck's own SGR, no C1 and no bidi control. --json output is
// checked too: it must hold no raw ESC, C1 or bidi character.
func TestHostileCorpusNeverReachesTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary ~40 times; skipped with -short")
	}
	dir := hostileProject(t)
	var runID string
	var runs struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(ptyRunJSON(t, dir, "runs"), &runs); err == nil && len(runs.Runs) > 0 {
		runID = runs.Runs[len(runs.Runs)-1].ID
	}
	cmds := [][]string{
		{"flow", "status"}, {"flow", "history"}, {"flow", "note", argCorpus},
		{"flow", "validate", "evil", "--status", "passed", "--scope", "targeted", "--command", argCorpus},
		{"flow", "review", "evil", "--decision", "approved", "--finding", argCorpus},
		{"flow", "run", "start", "evil"}, {"flow", "plan", "start", argCorpus},
		{"decisions"}, {"decisions", "--all"}, {"flows", "list"}, {"flows", "check"}, {"flows", "runs"},
		{"flows", "run", "evil", "--no-wait"}, {"runs"}, {"recall", "Marker"}, {"recall", "evil"},
		{"patterns"}, {"hud"}, {"diagram"}, {"run", "--", "printf", "%s", argCorpus},
		{"run", "--", "ls", "-1", "--quoting-style=literal"}, {"run", "--", "cat", "evil" + strings.ReplaceAll(argCorpus, "/", "")},
	}
	if runID != "" {
		cmds = append(cmds, []string{"show", runID}, []string{"patterns", "try", runID})
	}
	var flowRuns struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(ptyRunJSON(t, dir, "flows", "runs"), &flowRuns); err == nil && len(flowRuns.Runs) > 0 {
		cmds = append(cmds, []string{"flows", "runs", flowRuns.Runs[0].ID})
	}
	for _, args := range cmds {
		out := ptyRun(t, dir, args...)
		// Only recall's highlight and a command's own colours may style.
		styled := args[0] == "recall" || args[0] == "run"
		if err := hostile.Check(out, styled); err != nil {
			t.Errorf("flowdeck %s: %v", strings.Join(args, " ")[:min(60, len(strings.Join(args, " ")))], err)
		}
		jout := ptyRun(t, dir, append([]string{"--json"}, args...)...)
		if err := hostile.Check(jout, false); err != nil {
			t.Errorf("flowdeck --json %.60s: %v", strings.Join(args, " "), err)
		}
	}
}

// ptyRunJSON is ptyRun with --json, the terminal's \r\n undone.
func ptyRunJSON(t *testing.T, dir string, args ...string) []byte {
	out := ptyRun(t, dir, append([]string{"--json"}, args...)...)
	return bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))
}
