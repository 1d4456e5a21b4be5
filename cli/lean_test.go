package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/digest"
	"github.com/flowdeck/flowdeck/internal/digest/digesttest"
	"github.com/flowdeck/flowdeck/model"
)

// The commands the lean flowdeck answers from the status digest.
var digestCommands = [][]string{
	{"flow", "status"},
	{"--json", "flow", "status"},
	{"flow", "status", "--json"},
	{"hud"},
	{"hud", "--format", "markdown"},
	{"hud", "--format=text"},
}

// fullCLI is flowdeck-cli beside the lean binary.
func fullCLI() string { return filepath.Join(filepath.Dir(binary), "flowdeck-cli") }

// leanAlone copies the lean flowdeck into a directory of its own: run with
// an empty PATH it cannot become flowdeck-cli, so whatever it prints it
// answered from the digest.
func leanAlone(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(t.TempDir(), "flowdeck")
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return alone
}

// stampRE is a HUD's time stamp, and jsonAtRE the one of the JSON HUD; two
// runs a moment apart differ in them.
var (
	stampRE  = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)
	jsonAtRE = regexp.MustCompile(`"at":"[^"]*"`)
)

type output struct {
	stdout, stderr string
	code           int
}

// runBin runs bin with args in cwd (stdin: in), with PATH emptied when
// alone, and returns what it printed, stamps normalised.
func runBin(t testing.TB, bin, cwd, in string, alone bool, args ...string) output {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = cwd
	cmd.Stdin = strings.NewReader(in)
	cmd.Env = append(os.Environ(), "FLOWDECK_ACTOR=agent")
	if alone {
		cmd.Env = append(cmd.Env, "PATH=")
	}
	o, e, code := runProcess(t, cmd)
	norm := func(s string) string {
		return jsonAtRE.ReplaceAllString(stampRE.ReplaceAllString(s, "STAMP"), `"at":"AT"`)
	}
	return output{norm(o), norm(e), code}
}

// assertLeanAnswersAsCLI runs every digest command through the lean binary
// alone and through flowdeck-cli, and fails unless both print the same
// bytes and exit alike: the digest is what the full code prints, never a
// stale or different rendering.
func assertLeanAnswersAsCLI(t *testing.T, step, dir, alone string) {
	t.Helper()
	elsewhere := t.TempDir()
	for _, args := range digestCommands {
		args = append([]string{"--dir", dir}, args...)
		got, want := runBin(t, alone, elsewhere, "", true, args...), runBin(t, fullCLI(), elsewhere, "", false, args...)
		if got != want {
			t.Errorf("after %s: flowdeck %q answered\n%+v\nflowdeck-cli printed\n%+v", step, args, got, want)
		}
	}
	// Claude Code's hook: the project is found from the cwd in its JSON.
	hookIn := `{"session_id":"s","cwd":` + quoteJSON(dir) + `,"prompt":"go on"}`
	got := runBin(t, alone, elsewhere, hookIn, true, "hud", "--hook", "claude")
	want := runBin(t, fullCLI(), elsewhere, hookIn, false, "hud", "--hook", "claude")
	if got != want {
		t.Errorf("after %s: the hook answered\n%+v\nflowdeck-cli printed\n%+v", step, got, want)
	}
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestLeanAnswersAsFlowdeckCLI drives a session through the states flow
// status and the HUD show (planning, approval, two agents at work,
// evidence, a review, an interruption, an agent's event, a flow's pending
// decision and its answer) and after each step checks that the lean
// binary, alone, prints exactly what flowdeck-cli prints.
func TestLeanAnswersAsFlowdeckCLI(t *testing.T) {
	dir := t.TempDir()
	alone := leanAlone(t)
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","max_parallel":2,"features":[`+
		`{"id":"a","title":"A \u001b[31mred\u001b[0m","verification":["go test ./a"]},`+
		`{"id":"b","title":"B","verification":["go test ./b"]},{"id":"c","title":"C","depends_on":["a","b"]}]}`), 0o644)
	flowFile := "---\nliterate: true\n---\n\n# ask\n\n```yaml {config}\nstep: ask\ndecision:\n  prompt: \"ship it?\"\n" +
		"  options:\n    - id: go\nnext: done\n```\n\nask\n\n---\n\n```yaml {config}\nstep: done\nstop: true\n```\n\nend\n"
	os.MkdirAll(filepath.Join(dir, ".flow", "flows"), 0o755)
	os.WriteFile(filepath.Join(dir, ".flow", "flows", "ask.md"), []byte(flowFile), 0o644)
	steps := [][]string{
		{"flow", "plan", "start", "lean \u009b31m goal \u202e with hostile bytes"},
		{"flow", "plan", "apply", plan},
		{"flow", "plan", "approve"},
		{"flow", "run", "start", "a", "--agent", "w1"},
		{"flow", "run", "start", "b", "--agent", "w2"},
		{"flow", "validate", "a", "--status", "passed", "--scope", "targeted", "--command", "go test ./a", "--summary", "ok"},
		{"flow", "review", "a", "--decision", "needs_fix", "--finding", "more tests"},
		{"flow", "run", "interrupt", "b", "--summary", "agent w2 exited 137"},
		{"agent-event", "idle", "--agent", "w1"},
		{"flows", "run", "ask", "--no-wait"},
	}
	for _, args := range steps {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		assertLeanAnswersAsCLI(t, strings.Join(args, " "), dir, alone)
	}
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.Decisions(true)
	if err != nil || len(ds) != 1 {
		t.Fatalf("pending decisions: %v, %v", ds, err)
	}
	if _, errs, code := flowdeck(t, dir, "decide", ds[0].ID, "go"); code != 0 {
		t.Fatalf("decide: exit %d: %s", code, errs)
	}
	assertLeanAnswersAsCLI(t, "decide", dir, alone)
	// Archived, another session, the first activated again: the active
	// pointer moves and the digest follows it.
	first, _ := st.Active()
	for _, args := range [][]string{{"flow", "reset", "session"}, {"flow", "plan", "start", "second"}, {"flow", "session", first.ID}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		assertLeanAnswersAsCLI(t, strings.Join(args, " "), dir, alone)
	}
	if got := runBin(t, alone, dir, "", true, "--dir", dir, "flow", "status"); !strings.Contains(got.stdout, first.ID) {
		t.Fatalf("after activating %s again: %+v", first.ID, got)
	}
}

// TestLeanNeverPrintsAStaleDigest: a write by a store that does not render
// the digest (an older flowdeck, a tool of the user's) deletes it in its
// transaction, so the lean binary hands the command to flowdeck-cli, which
// shows the new state; the next write through flowdeck renders it again.
func TestLeanNeverPrintsAStaleDigest(t *testing.T) {
	dir := t.TempDir()
	alone := leanAlone(t)
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "start", "stale"); code != 0 {
		t.Fatalf("plan start: %s", errs)
	}
	if got := runBin(t, alone, dir, "", true, "--dir", dir, "flow", "status"); got.code != 0 || !strings.Contains(got.stdout, "goal:     stale") {
		t.Fatalf("the lean binary did not answer from the digest: %+v", got)
	}
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{}) // no Digest
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.AddNote{Text: "written without a digest"}, "tool", time.Now()); err != nil {
		t.Fatal(err)
	}
	got := runBin(t, alone, dir, "", true, "--dir", dir, "hud")
	if got.code != ExitInternal || !strings.Contains(got.stderr, "flowdeck-cli not found") {
		t.Fatalf("alone, with no digest, the lean binary should have handed hud on (and failed): %+v", got)
	}
	got, want := runBin(t, binary, dir, "", false, "--dir", dir, "hud"), runBin(t, fullCLI(), dir, "", false, "--dir", dir, "hud")
	if got != want || !strings.Contains(got.stdout, "seq 2") {
		t.Fatalf("forwarded hud differs or is stale:\n%+v\n%+v", got, want)
	}
	if _, errs, code := flowdeck(t, dir, "flow", "note", "again"); code != 0 {
		t.Fatalf("note: %s", errs)
	}
	if got := runBin(t, alone, dir, "", true, "--dir", dir, "hud"); got.code != 0 || !strings.Contains(got.stdout, "seq 3") {
		t.Fatalf("the next write did not render the digest again: %+v", got)
	}
}

// TestLeanHUDStampIsNow: the lean HUD says when it was printed, not when
// the digest was written.
func TestLeanHUDStampIsNow(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "start", "stamp"); code != 0 {
		t.Fatalf("plan start: %s", errs)
	}
	time.Sleep(1100 * time.Millisecond) // the stamp has whole seconds
	before := time.Now().UTC().Truncate(time.Second)
	cmd := exec.Command(leanAlone(t), "--dir", dir, "hud")
	cmd.Env = append(os.Environ(), "PATH=")
	out, err := cmd.Output()
	after := time.Now().UTC()
	if err != nil {
		t.Fatalf("hud: %v", err)
	}
	m := stampRE.Find(out)
	at, perr := time.Parse("2006-01-02 15:04:05 UTC", string(m))
	if perr != nil || at.Before(before) || at.After(after) {
		t.Fatalf("stamp %q (%v) is not within [%s, %s]:\n%s", m, perr, before, after, out)
	}
}

// TestLeanForwardsEverythingElse: what the digest does not hold goes to
// flowdeck-cli unchanged (arguments, stdin, exit code), and a hook whose
// project has no digest yet still starts in the hook's cwd.
func TestLeanForwardsEverythingElse(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "start", "forward"); code != 0 {
		t.Fatalf("plan start: %s", errs)
	}
	for _, args := range [][]string{
		{"--dir", dir, "flow", "status", "--full", "--json"},
		{"--dir", dir, "hud", "--json"},
		{"--dir", dir, "hud", "--format", "json"},
		{"--dir", dir, "hud", "--format", "yaml"},
		{"--dir", dir, "flow", "status", "extra"},
		{"--dir", dir, "flow", "status", "--format", "text"}, // hud's flag: a usage error here
		{"--dir", dir, "--json", "flow", "status", "--bogus"},
		{"--dir", dir, "hud", "--hook", "cursor"},
		{"--dir", filepath.Join(dir, "missing"), "flow", "status"},
	} {
		got, want := runBin(t, binary, dir, "", false, args...), runBin(t, fullCLI(), dir, "", false, args...)
		if got != want {
			t.Errorf("flowdeck %q:\n%+v\nflowdeck-cli %q:\n%+v", args, got, args, want)
		}
	}
	// A project whose database has no digest yet: the hook's cwd still
	// decides where the project is.
	fresh := t.TempDir()
	st, err := db.Open(filepath.Join(fresh, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "from the hook's cwd"}, "tool", time.Now()); err != nil {
		t.Fatal(err)
	}
	hookIn := `{"cwd":` + quoteJSON(fresh) + `}`
	got := runBin(t, binary, t.TempDir(), hookIn, false, "hud", "--hook", "claude")
	if got.code != 0 || !strings.Contains(got.stdout, "from the hook's cwd") {
		t.Fatalf("forwarded hook: %+v", got)
	}
}

// TestLeanJSONFailureIsOneObject: a lean flowdeck that cannot become
// flowdeck-cli still keeps --json's promise of one object on stdout.
func TestLeanJSONFailureIsOneObject(t *testing.T) {
	got := runBin(t, leanAlone(t), t.TempDir(), "", true, "runs", "--json=true")
	if got.code != ExitInternal || !bytes.HasPrefix([]byte(got.stdout), []byte("{")) ||
		!strings.Contains(got.stdout, `"code": "internal"`) || !strings.Contains(got.stdout, "flowdeck-cli not found") {
		t.Fatalf("%+v", got)
	}
}

// TestLeanLargePlan: a status too large to rewrite at every write is left
// out of the digest (flowdeck-cli prints it), while the HUD, bounded by
// design, is still answered by the lean binary.
func TestLeanLargePlan(t *testing.T) {
	dir := t.TempDir()
	var feats []string
	for i := range 201 {
		feats = append(feats, fmt.Sprintf(`{"id":"f%d","title":"Feature %d"}`, i, i))
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","features":[`+strings.Join(feats, ",")+`]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "large"}, {"flow", "plan", "apply", plan}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	alone := leanAlone(t)
	if got := runBin(t, alone, dir, "", true, "--dir", dir, "flow", "status"); got.code != ExitInternal {
		t.Fatalf("the lean binary answered a 201-feature status itself: %+v", got)
	}
	got, want := runBin(t, binary, dir, "", false, "--dir", dir, "flow", "status"), runBin(t, fullCLI(), dir, "", false, "--dir", dir, "flow", "status")
	if got != want || !strings.Contains(got.stdout, "f200") {
		t.Fatalf("forwarded status:\n%+v\n%+v", got, want)
	}
	got, want = runBin(t, alone, dir, "", true, "--dir", dir, "hud"), runBin(t, fullCLI(), dir, "", false, "--dir", dir, "hud")
	if got != want || got.code != 0 {
		t.Fatalf("hud:\n%+v\n%+v", got, want)
	}
}

// TestLeanAfterImport: a database rebuilt by import carries the digest of
// its active session, so the lean binary answers from it at once.
func TestLeanAfterImport(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"flow", "plan", "start", "imported"}, {"flow", "note", "before the export"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	export := filepath.Join(t.TempDir(), "export.jsonl")
	if _, errs, code := flowdeck(t, dir, "export", export); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	other := t.TempDir()
	if _, errs, code := flowdeck(t, other, "import", export); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	assertLeanAnswersAsCLI(t, "import", other, leanAlone(t))
	if got := runBin(t, leanAlone(t), other, "", true, "--dir", other, "flow", "status"); got.code != 0 || !strings.Contains(got.stdout, "imported") {
		t.Fatalf("after import: %+v", got)
	}
}

// storedDigest is digesttest.Stored on dir's database.
func storedDigest(t *testing.T, dir string, put ...[]byte) []byte {
	t.Helper()
	return digesttest.Stored(t, filepath.Join(dir, db.DBFile), put...)
}

// TestLeanShowsAnOlderFlowdecksWrite: a flowdeck that predates the digest
// writes events and the session and leaves the digest as it was. flow
// status then shows the new state (flowdeck-cli's), not the digest's.
func TestLeanShowsAnOlderFlowdecksWrite(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := flowdeck(t, dir, "flow", "plan", "start", "older"); code != 0 {
		t.Fatalf("plan start: %s", errs)
	}
	kept := storedDigest(t, dir)
	st, err := db.Open(filepath.Join(dir, db.DBFile), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan := model.Plan{Summary: "s", Features: []model.Feature{{ID: "written-by-an-older-flowdeck", Title: "Older"}}}
	if _, err := st.Do(model.PlanApply{Plan: plan}, "older", time.Now()); err != nil {
		t.Fatal(err)
	}
	storedDigest(t, dir, kept)
	for _, args := range digestCommands {
		args = append([]string{"--dir", dir}, args...)
		got, want := runBin(t, binary, dir, "", false, args...), runBin(t, fullCLI(), dir, "", false, args...)
		if got != want {
			t.Errorf("flowdeck %q printed the digest of before the older flowdeck's write:\n%+v\nflowdeck-cli:\n%+v", args, got, want)
		}
	}
	got := runBin(t, binary, dir, "", false, "--dir", dir, "flow", "status")
	if !strings.Contains(got.stdout, "written-by-an-older-flowdeck") {
		t.Fatalf("flow status does not show the older flowdeck's plan: %+v", got)
	}
}

// TestPlantedDigestIsCaught: a digest in flowdeck's own format whose
// content is not this database's state (here: another project's, copied
// in) is not printed by flow status, and flow verify and doctor report it,
// naming the file. One forged with the database's own change counter is
// reported by both as well.
func TestPlantedDigestIsCaught(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	for _, args := range [][]string{{"flow", "plan", "start", "the real goal"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	for _, args := range [][]string{{"flow", "plan", "start", "all done, nothing to review"}, {"flow", "note", "n"}} {
		if _, errs, code := flowdeck(t, other, args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	storedDigest(t, dir, storedDigest(t, other))
	if got := runBin(t, binary, dir, "", false, "--dir", dir, "flow", "status"); got.code != 0 ||
		strings.Contains(got.stdout, "all done") || !strings.Contains(got.stdout, "the real goal") {
		t.Errorf("flow status printed the planted digest: %+v", got)
	}
	assertCaught := func(what string) {
		t.Helper()
		dbFile := filepath.Join(dir, db.DBFile)
		if _, errs, code := flowdeck(t, dir, "flow", "verify"); code != ExitInternal ||
			!strings.Contains(errs, dbFile) || !strings.Contains(errs, "status digest") {
			t.Errorf("%s: flow verify exit %d: %s", what, code, errs)
		}
		if out, _, code := flowdeck(t, dir, "doctor"); code != ExitInternal ||
			!strings.Contains(out, dbFile) || !strings.Contains(out, "status digest") {
			t.Errorf("%s: doctor exit %d: %s", what, code, out)
		}
	}
	assertCaught("another project's digest")

	// Forged: this project's digest, counter and all, with a status that
	// is not the state's.
	if _, errs, code := flowdeck(t, dir, "flow", "note", "render it again"); code != 0 {
		t.Fatalf("note: %s", errs)
	}
	if _, errs, code := flowdeck(t, dir, "flow", "verify"); code != 0 {
		t.Fatalf("verify after a fresh render: %s", errs)
	}
	d, err := digest.Decode(storedDigest(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	d.StatusText = []byte("Session s\n  goal:     all done, nothing to review\n")
	storedDigest(t, dir, digest.Encode(d))
	assertCaught("a forged digest")
}
