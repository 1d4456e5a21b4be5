package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The files a person names on the command line (export, import, flow plan
// apply, patterns test): an agent can plant a symlink or a FIFO where the
// person expects a file. These run the real binary from inside the project,
// with relative names, as the README's recovery example does.

// namedBackstop is how long a command may take before the test calls it a
// hang: far more than any of these needs, so only a blocked open trips it.
const namedBackstop = 60 * time.Second

// flowdeckIn runs the binary with dir as both the project (--dir) and the
// working directory, killed at the backstop, which fails the test as a hang.
func flowdeckIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), namedBackstop)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"--dir", dir}, args...)...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a child holding the pipes must not outlive the kill
	out, errs, code := runProcess(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("flowdeck %v hung: killed after %v\nstdout %s\nstderr %s", args, namedBackstop, out, errs)
	}
	return out, errs, code
}

// refusedNaming fails unless the command exited 3 with the fault code and
// the path on stderr.
func refusedNaming(t *testing.T, what string, code int, errs, fault, path string) {
	t.Helper()
	if code != ExitInternal || !strings.Contains(errs, fault) || !strings.Contains(errs, path) {
		t.Fatalf("%s: exit %d, want %d with %s naming %s\nstderr %s", what, code, ExitInternal, fault, path, errs)
	}
}

func TestExportThroughPlantedSymlinkLeavesTheOutsideFile(t *testing.T) {
	dir := startedProject(t)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("mine"), 0o644)
	link := filepath.Join(dir, "events.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"export", "events.jsonl"}, {"export", "--force", "events.jsonl"}} {
		out, errs, code := flowdeckIn(t, dir, args...)
		if code == 0 || !strings.Contains(errs, link) {
			t.Fatalf("%v: exit %d, want a refusal naming %s\nstdout %s\nstderr %s", args, code, link, out, errs)
		}
		if data, _ := os.ReadFile(victim); string(data) != "mine" {
			t.Fatalf("%v wrote through the link: the outside file holds %.80q", args, data)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%v replaced the planted link (%v): the person should see it", args, err)
		}
	}
	// A link out of the project refuses as a link out of the project.
	_, errs, code := flowdeckIn(t, dir, "export", "events.jsonl")
	refusedNaming(t, "export through a link", code, errs, "path_escapes_project", link)
}

func TestExportRefusesAnExistingFileUnlessForce(t *testing.T) {
	dir := startedProject(t)
	target := filepath.Join(dir, "events.jsonl")
	os.WriteFile(target, []byte("an earlier export\n"), 0o600)
	_, errs, code := flowdeckIn(t, dir, "export", "events.jsonl")
	refusedNaming(t, "export onto a file", code, errs, "file_exists", target)
	if !strings.Contains(errs, "--force") {
		t.Fatalf("the refusal does not say how to replace it: %s", errs)
	}
	if data, _ := os.ReadFile(target); string(data) != "an earlier export\n" {
		t.Fatalf("the refused export changed the file: %.80q", data)
	}
	out, _, code := flowdeckIn(t, dir, "--json", "export", "events.jsonl")
	var res struct {
		OK    bool
		Error struct{ Code, Path string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitInternal || res.OK || res.Error.Code != "file_exists" || res.Error.Path != target {
		t.Fatalf("--json export onto a file: exit %d %s (%v)", code, out, err)
	}

	out, errs, code = flowdeckIn(t, dir, "export", "--force", "events.jsonl")
	if code != 0 {
		t.Fatalf("export --force: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	data, _ := os.ReadFile(target)
	if !strings.HasPrefix(string(data), `{"flowdeck_export"`) || strings.Count(string(data), "\n") < 3 {
		t.Fatalf("export --force did not replace the file: %.200q", data)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("a temporary file was left behind: %s", e.Name())
		}
	}
	// The replacement is the export: import takes it.
	fresh := t.TempDir()
	if _, errs, code := flowdeck(t, fresh, "import", target); code != 0 {
		t.Fatalf("import of the forced export: exit %d: %s", code, errs)
	}
	// A new file needs no --force.
	if _, errs, code := flowdeckIn(t, dir, "export", "new.jsonl"); code != 0 {
		t.Fatalf("export to a new file: exit %d: %s", code, errs)
	}
}

// A FIFO where the person expects a file: every command that reads or
// writes it returns at once, naming it. The old code blocked in open(2).
func TestNamedFIFOIsRefusedPromptly(t *testing.T) {
	dir := startedProject(t)
	fifo := filepath.Join(dir, "planted")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fresh := t.TempDir() // import refuses an existing database before it reads
	freshFIFO := filepath.Join(fresh, "planted")
	if err := syscall.Mkfifo(freshFIFO, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, path string
		args            []string
	}{
		{"plan apply", dir, fifo, []string{"flow", "plan", "apply", "planted"}},
		{"import", fresh, freshFIFO, []string{"import", "planted"}},
		{"patterns test", dir, fifo, []string{"patterns", "test", "--command", "go test", "planted"}},
		{"export", dir, fifo, []string{"export", "planted"}},
		{"export --force", dir, fifo, []string{"export", "--force", "planted"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // on a hang, one backstop for all of them
			_, errs, code := flowdeckIn(t, c.dir, c.args...)
			refusedNaming(t, c.name, code, errs, "not_regular_file", c.path)
		})
	}
}

func TestNamedDeviceIsRefused(t *testing.T) {
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/null character device")
	}
	dir := startedProject(t)
	fresh := t.TempDir()
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{dir, []string{"flow", "plan", "apply", "/dev/null"}},
		{fresh, []string{"import", "/dev/null"}},
		{dir, []string{"patterns", "test", "--command", "go test", "/dev/null"}},
		{dir, []string{"export", "--force", "/dev/null"}},
	} {
		_, errs, code := flowdeckIn(t, c.dir, c.args...)
		refusedNaming(t, strings.Join(c.args, " "), code, errs, "not_regular_file", "/dev/null")
	}
}

// Reading: a link planted inside the project that leads out is refused; a
// file outside the project that the person names is theirs to name, and a
// link that stays inside is followed.
func TestNamedFileLinksOutOfTheProjectAreRefused(t *testing.T) {
	dir := startedProject(t)
	outside := t.TempDir()
	plan := `{"summary":"s2","features":[{"id":"a","title":"A"}]}`
	os.WriteFile(filepath.Join(outside, "plan.json"), []byte(plan), 0o644)
	os.WriteFile(filepath.Join(outside, "out.txt"), []byte("ok\n"), 0o644)
	os.Symlink(filepath.Join(outside, "plan.json"), filepath.Join(dir, "plan-link.json"))
	os.Symlink(outside, filepath.Join(dir, "sub"))
	for _, c := range []struct{ name, path string }{
		{"plan-link.json", filepath.Join(dir, "plan-link.json")},
		{"sub/plan.json", filepath.Join(dir, "sub")},
	} {
		_, errs, code := flowdeckIn(t, dir, "flow", "plan", "apply", c.name)
		refusedNaming(t, "plan apply "+c.name, code, errs, "path_escapes_project", c.path)
	}
	_, errs, code := flowdeckIn(t, dir, "patterns", "test", "--command", "true", "sub/out.txt")
	refusedNaming(t, "patterns test through a linked directory", code, errs, "path_escapes_project", filepath.Join(dir, "sub"))

	if _, errs, code := flowdeckIn(t, dir, "flow", "plan", "apply", filepath.Join(outside, "plan.json")); code != 0 {
		t.Fatalf("plan apply of a file outside the project, named: exit %d: %s", code, errs)
	}
	os.WriteFile(filepath.Join(dir, "real.json"), []byte(plan), 0o644)
	os.Symlink("real.json", filepath.Join(dir, "inside-link.json"))
	if _, errs, code := flowdeckIn(t, dir, "flow", "plan", "apply", "inside-link.json"); code != 0 {
		t.Fatalf("plan apply through a link inside the project: exit %d: %s", code, errs)
	}
}
