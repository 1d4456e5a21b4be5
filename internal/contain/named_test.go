package contain

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func faultCode(err error) string {
	if f, ok := model.AsFault(err); ok {
		return f.Code
	}
	return ""
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	r, _ := os.OpenRoot(dir)
	defer r.Close()
	os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644)
	os.Symlink("f", filepath.Join(dir, "in"))
	os.Symlink(t.TempDir(), filepath.Join(dir, "out"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		flag int
		code string
	}{
		{"fifo", os.O_RDONLY, model.CodeNotRegularFile},
		{"fifo", os.O_WRONLY | os.O_APPEND | os.O_CREATE, model.CodeNotRegularFile},
		{".", os.O_RDONLY, model.CodeNotRegularFile},
		{"in", os.O_WRONLY | os.O_APPEND, model.CodeNotRegularFile}, // a link is not followed, even inside
		{"out", os.O_RDONLY, model.CodeNotRegularFile},              // a link, even one that leads out
		{"out/x", os.O_WRONLY | os.O_CREATE, model.CodePathEscapes},
	} {
		f, err := OpenRegular(r, c.name, c.flag, 0o644)
		if f != nil {
			f.Close()
		}
		if faultCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	// Appending inside a directory: created when missing, appended after.
	for range 2 {
		f, err := OpenRegular(r, "new", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("x\n")
		f.Close()
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "new")); string(data) != "x\nx\n" {
		t.Fatalf("appended: %q", data)
	}
	f, err := OpenRegular(r, "f", os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if data, _ := os.ReadFile(filepath.Join(dir, "f")); len(data) != 0 {
		t.Fatalf("O_TRUNC left %q", data)
	}
}

func TestOpenNamed(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(proj, "plan.json"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(outside, "plan.json"), []byte("out"), 0o644)
	os.Symlink(filepath.Join(outside, "plan.json"), filepath.Join(proj, "planted"))
	os.Symlink(outside, filepath.Join(proj, "sub"))
	os.Symlink("plan.json", filepath.Join(proj, "inside"))
	os.Symlink(proj, filepath.Join(outside, "alias"))                                    // the project under another name
	os.Symlink(filepath.Join(proj, "planted"), filepath.Join(outside, "via"))            // out, in, out again
	os.Symlink(filepath.Join(outside, "plan.json"), filepath.Join(outside, "mine.json")) // the person's own link
	read := func(name string) (string, error) {
		f, err := OpenNamed(proj, name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		return string(b), err
	}
	for name, want := range map[string]string{
		filepath.Join(proj, "plan.json"):        "in",
		filepath.Join(proj, "inside"):           "in",
		filepath.Join(outside, "plan.json"):     "out",
		filepath.Join(outside, "mine.json"):     "out",
		filepath.Join(outside, "alias/inside"):  "in",
		filepath.Join(proj, "sub/../plan.json"): "in", // cleaned as written, as cd does
	} {
		if got, err := read(name); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{
		filepath.Join(proj, "planted"),
		filepath.Join(proj, "sub/plan.json"),
		filepath.Join(outside, "alias/planted"),
		filepath.Join(outside, "alias/sub/plan.json"),
		filepath.Join(outside, "via"),
	} {
		if _, err := read(name); faultCode(err) != model.CodePathEscapes {
			t.Errorf("%s: %v, want %s", name, err, model.CodePathEscapes)
		}
	}
	if _, err := read("/dev/null"); faultCode(err) != model.CodeNotRegularFile {
		t.Errorf("/dev/null: %v", err)
	}
	_, err := read(filepath.Join(outside, "missing"))
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(outside, "missing") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want it named", err)
	}
}

func TestCreateNamed(t *testing.T) {
	proj, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(proj, "out.jsonl")
	write := func(name string, force bool, text string) error {
		o, err := CreateNamed(proj, name, force, 0o644)
		if err != nil {
			return err
		}
		o.WriteString(text)
		return o.Close()
	}
	if err := write(target, false, "one"); err != nil {
		t.Fatal(err)
	}
	if err := write(target, false, "two"); faultCode(err) != model.CodeFileExists {
		t.Fatalf("existing file without force: %v", err)
	}
	if err := write(target, true, "three"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "three" {
		t.Fatalf("force: %q", data)
	}
	// Abort keeps the file --force would have replaced, and removes a new one.
	o, _ := CreateNamed(proj, target, true, 0o644)
	o.WriteString("half")
	o.Abort()
	o, _ = CreateNamed(proj, filepath.Join(proj, "new"), false, 0o644)
	o.Abort()
	entries, _ := os.ReadDir(proj)
	if data, _ := os.ReadFile(target); string(data) != "three" || len(entries) != 1 {
		t.Fatalf("after Abort: %q, %d entries", data, len(entries))
	}

	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("mine"), 0o644)
	os.Symlink(victim, filepath.Join(proj, "planted"))
	os.Symlink("out.jsonl", filepath.Join(proj, "inside"))
	os.Symlink(victim, filepath.Join(outside, "mine"))
	os.Symlink(outside, filepath.Join(proj, "sub"))
	os.Symlink(filepath.Join(t.TempDir(), "far"), filepath.Join(outside, "far"))
	for name, code := range map[string]string{
		filepath.Join(outside, "far"):      model.CodeNotRegularFile, // outside the project: not an escape from it
		filepath.Join(proj, "planted"):     model.CodePathEscapes,
		filepath.Join(proj, "inside"):      model.CodeNotRegularFile,
		filepath.Join(outside, "mine"):     model.CodeNotRegularFile, // a link the person made is not written through either
		filepath.Join(proj, "sub", "new"):  model.CodePathEscapes,
		filepath.Join(proj, "sub", "mine"): model.CodePathEscapes,
		"/dev/null":                        model.CodeNotRegularFile,
	} {
		for _, force := range []bool{false, true} {
			if err := write(name, force, "x"); faultCode(err) != code {
				t.Errorf("%s (force %v): %v, want %s", name, force, err, code)
			}
		}
	}
	if data, _ := os.ReadFile(victim); string(data) != "mine" {
		t.Fatalf("written through a link: %q", data)
	}
	if err := write(filepath.Join(outside, "new"), false, "ok"); err != nil {
		t.Fatalf("a new file outside the project, named: %v", err)
	}
}

func TestOpenRegularNamesTheFullPath(t *testing.T) {
	dir := t.TempDir()
	r, _ := os.OpenRoot(dir)
	defer r.Close()
	_, err := OpenRegular(r, "missing", os.O_RDONLY, 0)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "missing") {
		t.Fatalf("%v: want it named by its full path", err)
	}
}
