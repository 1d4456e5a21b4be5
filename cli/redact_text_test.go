package cli

import (
	"os"
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
