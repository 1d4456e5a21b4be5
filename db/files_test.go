package db

import (
	"os"
	"path/filepath"
	"testing"
)

// The files other packages keep under .flow (flow-run locks, temporary
// scripts) are refused through a link out of the project too.
func TestFlowFilesThroughLinksOutAreRefused(t *testing.T) {
	st, out := newStore(t), newOutside(t)
	for _, dir := range []string{"flowruns", "tmp"} {
		symlink(t, out.dir, filepath.Join(st.Dir(), dir))
	}
	_, err := st.OpenFile(filepath.Join("flowruns", "r1.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	wantEscape(t, err, filepath.Join(st.Dir(), "flowruns"))
	_, err = st.CreateTemp("tmp", 0o700, "run-*-prompt.md")
	wantEscape(t, err, filepath.Join(st.Dir(), "tmp"))
	wantEscape(t, st.Remove(filepath.Join(out.dir, "notes.md")), filepath.Join(out.dir, "notes.md"))
	wantEscape(t, st.Remove(filepath.Join(st.Dir(), "tmp", "notes.md")), filepath.Join(st.Dir(), "tmp"))
	out.check(t)

	// Inside, they work, and CreateTemp names the file by its full path.
	os.Remove(filepath.Join(st.Dir(), "tmp"))
	f, err := st.CreateTemp("tmp", 0o700, "run-*-prompt.md")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if filepath.Dir(f.Name()) != filepath.Join(st.Dir(), "tmp") {
		t.Fatalf("temp file %s", f.Name())
	}
	if err := st.Remove(f.Name()); err != nil {
		t.Fatal(err)
	}
}
