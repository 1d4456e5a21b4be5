package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/db"
)

// startedProject is a project with a session and a two-feature plan, made
// through the real binary.
func startedProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"summary":"s","features":[{"id":"a","title":"A"},{"id":"b","title":"B","depends_on":["a"]}]}`), 0o644)
	for _, args := range [][]string{{"flow", "plan", "start", "guarded"}, {"flow", "plan", "apply", plan}, {"flow", "note", "first"}} {
		if _, errs, code := flowdeck(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	return dir
}

func sessionDocs(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".flow", "sessions", "*", "docs"))
	if len(m) != 1 {
		t.Fatalf("docs dirs: %v", m)
	}
	return m[0]
}

// The attack, through the binary: a symlink at docs/features made
// flow note delete the *.md it pointed at and write there.
func TestNoteThroughSymlinkOutIsRefusedByTheBinary(t *testing.T) {
	dir := startedProject(t)
	outside := t.TempDir()
	notes := filepath.Join(outside, "notes.md")
	os.WriteFile(notes, []byte("mine"), 0o644)
	features := filepath.Join(sessionDocs(t, dir), "features")
	os.RemoveAll(features)
	if err := os.Symlink(outside, features); err != nil {
		t.Fatal(err)
	}
	out, errs, code := flowdeck(t, dir, "flow", "note", "hi")
	if code != ExitInternal || !strings.Contains(errs, "path_escapes_project") || !strings.Contains(errs, features) {
		t.Fatalf("note: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if strings.Contains(out, "note added") {
		t.Fatalf("the refused note was reported as added: %s", out)
	}
	out, _, code = flowdeck(t, dir, "--json", "flow", "note", "hi")
	var res struct {
		OK    bool
		Error struct{ Code, Path, Hint string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitInternal || res.Error.Code != "path_escapes_project" || res.Error.Path != features || res.Error.Hint == "" {
		t.Fatalf("--json note: exit %d %s (%v)", code, out, err)
	}
	entries, _ := os.ReadDir(outside)
	if data, _ := os.ReadFile(notes); len(entries) != 1 || string(data) != "mine" {
		t.Fatalf("outside directory changed: %v %q", entries, data)
	}
}

func TestDamagedDatabaseExitsThreeNamingTheFile(t *testing.T) {
	dir := startedProject(t)
	path := filepath.Join(dir, db.DBFile)
	good, _ := os.ReadFile(path)
	page := os.Getpagesize()
	for name, data := range map[string][]byte{
		"zero-length":     {},
		"truncated":       good[:3*page],
		"page headers":    scribble(append([]byte(nil), good...), page),
		"foreign":         []byte(strings.Repeat("PNG\x00not a database", 500)),
		"both meta pages": append(make([]byte, 2*page), good[2*page:]...),
	} {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(path, data, 0o644)
			for _, args := range [][]string{{"flow", "status"}, {"flow", "note", "x"}, {"runs"}} {
				_, errs, code := flowdeck(t, dir, args...)
				if code != ExitInternal || !strings.Contains(errs, "database_corrupt") || !strings.Contains(errs, path) ||
					strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") {
					t.Fatalf("%v: exit %d\n%s", args, code, errs)
				}
			}
			out, _, code := flowdeck(t, dir, "--json", "flow", "status")
			var res struct {
				OK    bool
				Error struct{ Code, Path, Hint string }
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitInternal || res.OK ||
				res.Error.Code != "database_corrupt" || res.Error.Path != path || res.Error.Hint == "" {
				t.Fatalf("--json flow status: exit %d %s (%v)", code, out, err)
			}
			if after, _ := os.ReadFile(path); len(after) != len(data) {
				t.Fatalf("the damaged file was rewritten: %d bytes, was %d", len(after), len(data))
			}
			if out, _, code := flowdeck(t, dir, "doctor"); code != ExitInternal || !strings.Contains(out, "damaged") {
				t.Fatalf("doctor: exit %d\n%s", code, out)
			}
		})
	}
}

// scribble overwrites the header of every page after the meta pages.
func scribble(b []byte, page int) []byte {
	for off := 2 * page; off+16 <= len(b); off += page {
		copy(b[off:], "\xa5\x5a\xa5\x5a\xa5\x5a\xa5\x5a\xa5\x5a\xa5\x5a\xa5\x5a\xa5\x5a")
	}
	return b
}

func TestExportImportVerifyThroughTheBinary(t *testing.T) {
	dir := startedProject(t)
	export := filepath.Join(t.TempDir(), "events.jsonl")
	if out, errs, code := flowdeck(t, dir, "export", export); code != 0 || !strings.Contains(out, "exported 1 sessions") {
		t.Fatalf("export: exit %d %s %s", code, out, errs)
	}
	// Exporting over the database itself is refused, and the file is kept.
	dbFile := filepath.Join(dir, db.DBFile)
	before, _ := os.ReadFile(dbFile)
	if _, errs, code := flowdeck(t, dir, "export", dbFile); code != ExitUsage || !strings.Contains(errs, "the database itself") {
		t.Fatalf("export over the database: exit %d %s", code, errs)
	}
	if after, _ := os.ReadFile(dbFile); len(before) == 0 || string(after) != string(before) {
		t.Fatalf("the database changed: %d bytes, was %d", len(after), len(before))
	}
	stdout, _, code := flowdeck(t, dir, "export")
	if file, _ := os.ReadFile(export); code != 0 || stdout != string(file) {
		t.Fatalf("export to stdout differs from the file (exit %d)", code)
	}
	// The database is lost; import refuses to overwrite one, then rebuilds.
	os.WriteFile(filepath.Join(dir, db.DBFile), nil, 0o644)
	if _, errs, code := flowdeck(t, dir, "import", export); code != ExitInternal || !strings.Contains(errs, "database_exists") {
		t.Fatalf("import over a file: exit %d %s", code, errs)
	}
	out, errs, code := flowdeck(t, dir, "import", "--force", export)
	if code != 0 || !strings.Contains(out, "verified") || !strings.Contains(out, "moved the old database") {
		t.Fatalf("import --force: exit %d %s %s", code, out, errs)
	}
	if out, errs, code := flowdeck(t, dir, "flow", "verify"); code != 0 {
		t.Fatalf("verify: %s %s", out, errs)
	}
	out, _, _ = flowdeck(t, dir, "flow", "status")
	if !strings.Contains(out, "guarded") {
		t.Fatalf("status after import: %s", out)
	}
	if out, _, code := flowdeck(t, dir, "doctor"); code != 0 || !strings.Contains(out, "✓ pages consistent") {
		t.Fatalf("doctor after import: exit %d %s", code, out)
	}
}

// Read-only commands work on a project nobody may write. As root, which
// ignores permissions, the project is made read-only by a read-only bind
// mount in a private mount namespace.
func TestReadOnlyProjectServesReaders(t *testing.T) {
	dir := startedProject(t)
	if out, errs, code := flowdeck(t, dir, "run", "--", "echo", "hello-readonly"); code != 0 {
		t.Fatalf("run: %s %s", out, errs)
	}
	out, _, _ := flowdeck(t, dir, "--json", "runs")
	var runs struct{ Runs []struct{ ID string } }
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs.Runs) == 0 {
		t.Fatalf("runs: %s (%v)", out, err)
	}
	readers := [][]string{{"flow", "status"}, {"hud"}, {"runs"}, {"show", runs.Runs[0].ID}, {"recall", "hello-readonly"},
		{"flow", "history"}, {"flow", "verify"}, {"export"}, {"doctor"}}
	run := readOnlyRunner(t, dir)
	for _, args := range readers {
		out, errs, code := run(args...)
		if code != 0 {
			t.Errorf("%v on a read-only project: exit %d\n%s%s", args, code, out, errs)
		}
	}
	// A writer fails with an error, not a hang or a panic.
	if _, errs, code := run("flow", "note", "x"); code == 0 || strings.Contains(errs, "panic") {
		t.Errorf("note on a read-only project: exit %d %s", code, errs)
	}
}

func readOnlyRunner(t *testing.T, dir string) func(args ...string) (string, string, int) {
	if os.Geteuid() != 0 {
		// Everything read-only: the directories and the files in .flow
		// (the database and its lock would stay writable otherwise).
		var paths []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return err
		})
		for _, p := range paths {
			fi, _ := os.Stat(p)
			os.Chmod(p, fi.Mode().Perm()&^0o222)
			t.Cleanup(func() { os.Chmod(p, fi.Mode().Perm()) })
		}
		return func(args ...string) (string, string, int) { return flowdeck(t, dir, args...) }
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("running as root, which ignores permissions, and unshare(1) is missing for a read-only mount")
	}
	probe := exec.Command(unshare, "-m", "true")
	if err := probe.Run(); err != nil {
		t.Skipf("running as root, which ignores permissions, and no mount namespace for a read-only mount: %v", err)
	}
	script := `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"`
	return func(args ...string) (string, string, int) {
		argv := append([]string{"-m", "sh", "-c", script, "sh", dir, binary, "--dir", dir}, args...)
		return runProcess(t, exec.Command(unshare, argv...))
	}
}

// init and the database through links out of the project, via the binary:
// exit 3, the link named, nothing written outside.
func TestLinksOutRefusedByTheBinary(t *testing.T) {
	cases := []struct {
		link string
		args []string
		file bool
	}{
		{".claude", []string{"init", "--agent", "claude"}, false},
		{"AGENTS.md", []string{"init"}, true},
		{".flow/flowdeck.db", []string{"flow", "status"}, false},
		{".flow/flowdeck.db", []string{"flow", "plan", "start", "x"}, true},
		{".flow", []string{"flow", "plan", "start", "x"}, false},
	}
	for _, c := range cases {
		t.Run(c.link+"/"+strings.Join(c.args, "_"), func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "dangling")
			if c.file {
				target = filepath.Join(outside, "file")
				os.WriteFile(target, []byte("mine"), 0o644)
			}
			link := filepath.Join(dir, c.link)
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			_, errs, code := flowdeck(t, dir, c.args...)
			if code != ExitInternal || !strings.Contains(errs, "path_escapes_project") || !strings.Contains(errs, link) {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			entries, _ := os.ReadDir(outside)
			data, _ := os.ReadFile(target)
			if c.file && (len(entries) != 1 || string(data) != "mine") || !c.file && len(entries) != 0 {
				t.Fatalf("outside changed: %v %q", entries, data)
			}
		})
	}
}
