package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// scriptedEditor is an "editor" for flow plan edit: a shell script that, on
// its nth run, keeps a copy of the file it was given (seen.N), runs the
// script hook.N (what someone else does meanwhile), replaces the file with
// round.N or leaves it as it is when there is no round.N, and exits with
// the code in exit.N when there is one. VISUAL holds it with an
// argument, so the value is split into words.
type scriptedEditor struct {
	t   *testing.T
	dir string
}

func newScriptedEditor(t *testing.T) *scriptedEditor {
	dir := t.TempDir()
	script := `#!/bin/sh
# $1 is the argument VISUAL holds, $2 the file
[ "$1" = "--wait" ] || exit 99
dir=$(dirname "$0")
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$dir/count"
cp "$2" "$dir/seen.$n"
if [ -f "$dir/hook.$n" ]; then sh "$dir/hook.$n" >/dev/null 2>&1 || exit 98; fi
if [ -f "$dir/round.$n" ]; then cp "$dir/round.$n" "$2"; fi
if [ -f "$dir/exit.$n" ]; then exit "$(cat "$dir/exit.$n")"; fi
exit 0
`
	if err := os.WriteFile(filepath.Join(dir, "editor.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &scriptedEditor{t: t, dir: dir}
}

// round makes the editor write text on its nth run.
func (e *scriptedEditor) round(n int, text string) {
	os.WriteFile(filepath.Join(e.dir, "round."+strconv.Itoa(n)), []byte(text), 0o644)
}

// seen is the file as the editor was given it on its nth run ("" = no such run).
func (e *scriptedEditor) seen(n int) string {
	b, _ := os.ReadFile(filepath.Join(e.dir, "seen."+strconv.Itoa(n)))
	return string(b)
}

func (e *scriptedEditor) runs() int {
	b, _ := os.ReadFile(filepath.Join(e.dir, "count"))
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// edit runs the real binary's flow plan edit in project dir with a terminal
// (a pty) on standard input and the scripted editor as $VISUAL.
func (e *scriptedEditor) edit(dir string, args ...string) (string, string, int) {
	e.t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		e.t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	go io.Copy(io.Discard, ptmx) // what the editor draws
	cmd := exec.Command(binary, append([]string{"--dir", dir}, append(args, "flow", "plan", "edit")...)...)
	cmd.Stdin = tty
	cmd.Env = append(os.Environ(), "VISUAL=sh "+filepath.Join(e.dir, "editor.sh")+" --wait", "EDITOR=false")
	out, errs, code := runProcess(e.t, cmd)
	tty.Close()
	return out, errs, code
}

// activePlan is the plan stored in project dir and who applied it.
func activePlan(t *testing.T, dir string) (*model.Plan, string) {
	t.Helper()
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}

	s, err := st.Active()
	if err != nil || s == nil {
		t.Fatalf("active session: %v %v", s, err)
	}
	actor := ""
	for _, h := range s.Execution.History {
		if h.Type == model.EventPlanApplied {
			actor = h.Actor
		}
	}
	return s.Plan, actor
}

const editedPlan = `// written in the editor
{
  "summary": "password reset",
  "features": [
    {"id": "token-store", "title": "Tokens"},
    {"id": "reset-api", "title": "API", "depends_on": ["token-store"],}, // JSONC
  ],
}
`

func TestPlanEditAppliesWhatIsSaved(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "password reset")
	ed := newScriptedEditor(t)
	ed.round(1, editedPlan)
	out, errs, code := ed.edit(dir, "--json", "--actor", "alice")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// The session had no plan: the editor got the commented template.
	if got := ed.seen(1); !strings.HasPrefix(got, "// A plan for flowdeck") || !strings.Contains(got, `"depends_on"`) {
		t.Fatalf("the editor was given:\n%s", got)
	}
	var res struct {
		OK     bool `json:"ok"`
		Events []struct {
			Type  string `json:"type"`
			Actor string `json:"actor"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK || len(res.Events) != 1 ||
		res.Events[0].Type != string(model.EventPlanApplied) || res.Events[0].Actor != "alice" {
		t.Fatalf("--json result %q: %v", out, err)
	}
	p, actor := activePlan(t, dir)
	if len(p.Features) != 2 || p.Features[1].DependsOn[0] != "token-store" || actor != "alice" {
		t.Fatalf("stored plan %+v by %s", p, actor)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "flowdeck-plan-*.jsonc")); len(left) > 0 {
		for _, f := range left {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte("password reset")) {
				t.Errorf("the applied plan's file is left behind: %s", f)
			}
		}
	}

	// Editing again starts from the stored plan.
	ed2 := newScriptedEditor(t)
	if _, errs, code := ed2.edit(dir); code != ExitUsage || !strings.Contains(errs, "unchanged") {
		t.Fatalf("an unchanged save: exit %d %s", code, errs)
	}
	if got := ed2.seen(1); strings.Contains(got, "//") || !strings.Contains(got, `"id": "reset-api"`) || strings.Contains(got, "status") {
		t.Fatalf("the stored plan as given to the editor:\n%s", got)
	}
}

func TestPlanEditReopensARefusalAboveTheText(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "password reset")
	ed := newScriptedEditor(t)
	bad := strings.Replace(editedPlan, `"depends_on": ["token-store"]`, `"depends_on": ["mailer"]`, 1)
	ed.round(1, bad)
	ed.round(2, editedPlan)
	out, errs, code := ed.edit(dir)
	if code != ExitOK || ed.runs() != 2 {
		t.Fatalf("exit %d after %d editor runs\n%s\n%s", code, ed.runs(), out, errs)
	}
	second := ed.seen(2)
	if !strings.HasPrefix(second, "// ✗ flowdeck did not apply this plan") {
		t.Fatalf("the second round does not start with the refusal:\n%s", second)
	}
	note, text, ok := strings.Cut(second, "── fix it and save to try again; quit without saving, or empty the file, to cancel ──\n")
	if !ok || text != bad {
		t.Fatalf("the person's text is not kept below the note:\n%s", second)
	}
	for _, w := range []string{"plan_unknown_dependency", "reset-api -> mailer", "at fault: reset-api (line "} {
		if !strings.Contains(note, w) {
			t.Errorf("the note lacks %q:\n%s", w, note)
		}
	}
	if p, _ := activePlan(t, dir); p.Features[1].DependsOn[0] != "token-store" {
		t.Fatalf("stored %+v", p)
	}
	if !strings.Contains(out, "next:") {
		t.Fatalf("no result printed: %q", out)
	}

	// A syntax error reopens too, naming the line as the person sees it.
	ed = newScriptedEditor(t)
	ed.round(1, "{\n  \"summary\": \"s\"\n  \"features\": []\n}\n")
	ed.exit(2, 1) // then the person gives up
	_, errs, code = ed.edit(dir)
	if code != ExitUsage || ed.runs() != 2 {
		t.Fatalf("exit %d after %d runs: %s", code, ed.runs(), errs)
	}
	second = ed.seen(2)
	nNote := strings.Count(second[:strings.Index(second, "{")], "\n")
	if !strings.Contains(second, "line "+strconv.Itoa(nNote+3)+", column 3") {
		t.Fatalf("the note does not name line %d:\n%s", nNote+3, second)
	}
	// Cancelled after typing: the text is kept, in a file the message names.
	kept := keptFile(t, errs)
	if b, err := os.ReadFile(kept); err != nil || !strings.Contains(string(b), `"summary": "s"`) {
		t.Fatalf("kept file %s: %v\n%s", kept, err, b)
	}
	os.Remove(kept)
}

func (e *scriptedEditor) exit(n, code int) {
	os.WriteFile(filepath.Join(e.dir, "exit."+strconv.Itoa(n)), []byte(strconv.Itoa(code)), 0o644)
}

// keptFile is the file a cancel message says holds the person's text.
func keptFile(t *testing.T, msg string) string {
	t.Helper()
	_, rest, ok := strings.Cut(msg, "kept in ")
	if !ok {
		t.Fatalf("no kept file in %q", msg)
	}
	f, _, _ := strings.Cut(rest, ";")
	return f
}

func TestPlanEditCancels(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "password reset")

	ed := newScriptedEditor(t) // saves nothing
	out, errs, code := ed.edit(dir, "--json")
	if code != ExitUsage {
		t.Fatalf("unchanged: exit %d %s %s", code, out, errs)
	}
	if e := oneError(t, "unchanged", out); e.Code != codeEditCancelled || !strings.Contains(e.Message, "unchanged") ||
		strings.Contains(e.Message, "kept") {
		t.Fatalf("unchanged: %+v", e)
	}

	ed = newScriptedEditor(t)
	ed.round(1, "// I changed my mind\n")
	if _, errs, code := ed.edit(dir); code != ExitUsage || !strings.Contains(errs, "empty") || !strings.Contains(errs, "nothing applied") {
		t.Fatalf("empty: exit %d %s", code, errs)
	}

	ed = newScriptedEditor(t)
	ed.round(1, editedPlan)
	ed.exit(1, 1) // :cq
	_, errs, code = ed.edit(dir)
	if code != ExitUsage || !strings.Contains(errs, "failed") {
		t.Fatalf("editor exit 1: exit %d %s", code, errs)
	}
	os.Remove(keptFile(t, errs))

	st, _ := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	s, _ := st.Active()

	if s.Plan != nil {
		t.Fatalf("a cancelled edit applied %+v", s.Plan)
	}
}

func TestPlanEditRefusesWithoutATerminalOrASession(t *testing.T) {
	dir := t.TempDir()
	ed := newScriptedEditor(t)
	// No session: refused as apply would be, before any editor runs.
	out, _, code := ed.edit(dir, "--json")
	if code != ExitRejected || ed.runs() != 0 {
		t.Fatalf("no session: exit %d, %d editor runs", code, ed.runs())
	}
	if e := oneError(t, "no session", out); e.Code != model.CodeNoActiveSession {
		t.Fatalf("no session: %+v", e)
	}
	flowdeck(t, dir, "flow", "plan", "start", "goal")
	// Standard input is not a terminal (go test's is not).
	cmd := exec.Command(binary, "--dir", dir, "flow", "plan", "edit")
	cmd.Env = append(os.Environ(), "VISUAL=sh "+filepath.Join(ed.dir, "editor.sh")+" --wait")
	_, errs, code := runProcess(t, cmd)
	if code != ExitUsage || !strings.Contains(errs, "flowdeck flow plan apply FILE") || ed.runs() != 0 {
		t.Fatalf("no terminal: exit %d %q", code, errs)
	}
}

// Plans are JSONC wherever they are read: flow plan apply FILE too, and an
// error names the line of the person's file.
func TestPlanApplyReadsJSONC(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "password reset")
	file := filepath.Join(dir, "plan.jsonc")
	os.WriteFile(file, []byte(editedPlan), 0o644)
	if out, errs, code := flowdeck(t, dir, "flow", "plan", "apply", file); code != ExitOK {
		t.Fatalf("exit %d %s %s", code, out, errs)
	}
	if p, _ := activePlan(t, dir); len(p.Features) != 2 {
		t.Fatalf("stored %+v", p)
	}
	// Line 6 of the file holds the misspelt field, below a block comment.
	broken := "// a plan\n/* with\n   comments */\n{\n  \"summary\": \"s\",\n  \"featurs\": []\n}\n"
	os.WriteFile(file, []byte(broken), 0o644)
	_, errs, code := flowdeck(t, dir, "flow", "plan", "apply", file)
	if code != ExitUsage || !strings.Contains(errs, "line 6, column 3") || !strings.Contains(errs, "featurs") {
		t.Fatalf("exit %d %s", code, errs)
	}
}

// The session changes while the person edits, so that no plan can apply
// now (a feature was started): the edit ends with apply's refusal, exit 1,
// rather than reopening the editor for what no edit can fix, and the text
// is kept.
func TestPlanEditEndsOnARefusalOfTheState(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "password reset")
	file := filepath.Join(dir, "plan.jsonc")
	os.WriteFile(file, []byte(editedPlan), 0o644)
	flowdeck(t, dir, "flow", "plan", "apply", file)
	ed := newScriptedEditor(t)
	hook := fmt.Sprintf("%s --dir %s flow plan approve && %s --dir %s flow run start token-store\n", binary, dir, binary, dir)
	os.WriteFile(filepath.Join(ed.dir, "hook.1"), []byte(hook), 0o644)
	ed.round(1, strings.Replace(editedPlan, `"title": "API"`, `"title": "Reset API"`, 1))
	out, errs, code := ed.edit(dir, "--json")
	if code != ExitRejected || ed.runs() != 1 {
		t.Fatalf("exit %d after %d editor runs\n%s\n%s", code, ed.runs(), out, errs)
	}
	if e := oneError(t, "state refusal", out); e.Code != model.CodePlanNotEditable {
		t.Fatalf("refusal %+v", e)
	}
	_, kept, ok := strings.Cut(errs, "kept in ")
	kept = strings.TrimSpace(kept)
	if b, err := os.ReadFile(kept); !ok || err != nil || !strings.Contains(string(b), "Reset API") {
		t.Fatalf("kept %q: %v (stderr %q)", kept, err, errs)
	}
	os.Remove(kept)
}
