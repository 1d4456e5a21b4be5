package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every free text an action stores is redacted before it is stored: the
// goal (and so the session's id and docs folder), the plan's prose and
// decisions, a note, review findings, an interruption's and a completion's
// summary. Nothing shows the secret: the results, status and history, the
// database file and the .flow docs people commit.
func TestActionTextIsRedactedWhereStored(t *testing.T) {
	dir := t.TempDir()
	secret := map[string]string{
		"goal": "ghp_goal0abcdefghijklmnopqrstuvwxyz01234", "summary": "sk_live_planSummary4eC39HqLyjWD", "decision": "glpat-PlanDecisionAbCdEfGh",
		"title": "AKIAPLANTITLE7EXAMPL", "note": "xoxb-123456789012-1234567890123-NoteNoteNoteNoteNote1234",
		"finding": "sk-ant-api03-FindingFindingFindingFinding01", "interrupt": "ghp_interrupt0abcdefghijklmnopqrstuvwxy",
		"complete": "DB_PASSWORD=completeSummaryPw", "option": "--token tokCompleteOption77",
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"uses `+secret["summary"]+`","decisions":["key `+secret["decision"]+`"],
		"features":[{"id":"a","title":"A `+secret["title"]+`","verification":["true"]},{"id":"b","title":"B"}]}`), 0o644)
	var shown strings.Builder
	for _, args := range [][]string{
		{"flow", "plan", "start", "goal " + secret["goal"]}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"},
		{"flow", "run", "start", "a"}, {"flow", "note", "note " + secret["note"]},
		{"flow", "review", "a", "--decision", "needs_fix", "--finding", "finding " + secret["finding"]},
		{"flow", "run", "interrupt", "a", "--summary", "why " + secret["interrupt"]}, {"flow", "run", "resume", "a"},
		{"flow", "run", "complete", "a", "--outcome", "blocked", "--summary", secret["complete"] + " deploy " + secret["option"]},
		{"flow", "status"}, {"--json", "flow", "status", "--full"}, {"flow", "history"}, {"--json", "flow", "history"},
	} {
		out, errs, code := flowdeck(t, dir, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		shown.WriteString(out + errs)
	}
	if !strings.Contains(shown.String(), "[REDACTED]") {
		t.Fatalf("nothing shows [REDACTED]:\n%s", shown.String())
	}
	docs := 0
	filepath.WalkDir(filepath.Join(dir, ".flow"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			b, _ := os.ReadFile(path)
			shown.WriteString(path + "\n" + string(b))
			docs++
		}
		return nil
	})
	if docs == 0 {
		t.Fatal("no .flow docs were written")
	}
	for what, s := range secret {
		value := s[strings.IndexAny(s, "= ")+1:] // an assignment's or option's value
		mustHide(t, what+" in results, status, history and docs", shown.String(), value)
		scanDatabase(t, dir, value)
	}
}

// A line longer than the 1 MiB flowdeck holds of one line is stored in
// pieces; a secret that straddles a piece boundary is still redacted. The
// real binary prints three lines of 1.2 MiB made of nothing but tokens, so
// that wherever the output's buffers put a boundary it cuts one; neither
// show, recall nor the database file (output chunks decompressed) holds a
// part of a token.
func TestSecretAcrossPieceBoundaryIsRedacted(t *testing.T) {
	dir := t.TempDir()
	const token = "ghp_seam0abcdefghijklmnopqrstuvwxyz01234"
	n := (1<<20 + 200<<10) / (len(token) + 1)
	line := strings.Repeat(" "+token, n) + "\n"
	file := filepath.Join(t.TempDir(), "long")
	if err := os.WriteFile(file, []byte(line+line+line), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := flowdeck(t, dir, "--json", "run", "--", "cat", file)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.RunID == "" {
		t.Fatalf("run result %.200q: %v", out, err)
	}
	shown, _, _ := flowdeck(t, dir, "show", "--raw", res.RunID)
	if got := strings.Count(shown, "[REDACTED]"); got != 3*n {
		t.Errorf("show --raw has %d redacted tokens, want %d", got, 3*n)
	}
	for _, part := range []string{token[:20], token[20:]} {
		if i := strings.Index(shown, part); i >= 0 {
			t.Errorf("show --raw holds a part of the token: …%s…", shown[max(0, i-30):min(len(shown), i+50)])
		}
	}
	if recalled, _, _ := flowdeck(t, dir, "recall", token[20:]); strings.Contains(recalled, token[20:]) {
		t.Errorf("recall finds a part of the token")
	}
	if scanDatabase(t, dir, token[20:]) == 0 {
		t.Fatal("no compressed output chunk found to scan")
	}
}

// flows run shows its commands' output live, on a terminal or into a file
// its stdout is sent to: the output is redacted as the stored output is,
// a secret printed in two writes and coloured included.
func TestFlowsRunLiveOutputIsRedacted(t *testing.T) {
	dir := t.TempDir()
	secrets := []string{"ghp_live0abcdefghijklmnopqrstuvwxyz0123", "hunter2live"}
	os.WriteFile(filepath.Join(dir, "a"), []byte("token "+secrets[0][:12]), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte(secrets[0][12:]+" end\nDB_PASSWORD=\x1b[31m"+secrets[1]+"\x1b[0m\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".flow", "flows"), 0o755)
	os.WriteFile(filepath.Join(dir, ".flow", "flows", "leak.md"), []byte("---\nliterate: true\n---\n\n"+
		"```sh {exec}\ncat a; sleep 0.05; cat b\n```\n"), 0o644)
	term := string(ptyRun(t, dir, "flows", "run", "leak"))
	if !strings.Contains(term, "token [REDACTED] end") {
		t.Errorf("the terminal does not show the redacted line:\n%s", term)
	}
	file := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--dir", dir, "flows", "run", "leak")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		t.Fatalf("flows run into a file: %v", err)
	}
	f.Close()
	logged, _ := os.ReadFile(file)
	if !strings.Contains(string(logged), "token [REDACTED] end") {
		t.Errorf("the file does not hold the redacted line:\n%s", logged)
	}
	for _, s := range secrets {
		mustHide(t, "flows run on a terminal", term, s)
		mustHide(t, "flows run into a file", string(logged), s)
	}
}
