package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// docStat is what shows that a file was read (its access time, which the
// test set before the mtime, so that relatime records the next read) or
// replaced (its inode).
type docStat struct {
	atime time.Time
	ino   uint64
}

func statDoc(t *testing.T, path string) docStat {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return docStat{time.Unix(st.Atim.Sec, st.Atim.Nsec), st.Ino}
}

// ageAtime puts path's access time an hour before its modification time:
// with relatime (Linux's default) the next read moves it.
func ageAtime(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime().Add(-time.Hour), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestNoteReadsNoFeatureDoc: a note changes no feature, so it neither
// reads nor rewrites any feature doc, whether a feature is active or none
// is (where a note used to render and read every doc of the plan). Reads
// are seen by the access time, so the test needs a file system that
// records them.
func TestNoteReadsNoFeatureDoc(t *testing.T) {
	const n = 30
	var feats []string
	for i := range n {
		dep := ""
		if i > 0 {
			dep = fmt.Sprintf(`,"depends_on":["f%d"]`, i-1)
		}
		feats = append(feats, fmt.Sprintf(`{"id":"f%d","title":"Feature %d"%s}`, i, i, dep))
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(plan, []byte(`{"summary":"chain","features":[`+strings.Join(feats, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, started := range []bool{false, true} {
		t.Run(fmt.Sprint("feature active: ", started), func(t *testing.T) {
			dir := t.TempDir()
			steps := [][]string{{"flow", "plan", "start", "reads"}, {"flow", "plan", "apply", plan}, {"flow", "plan", "approve"}}
			if started {
				steps = append(steps, []string{"flow", "run", "start"})
			}
			for _, args := range steps {
				if _, errs, code := flowdeck(t, dir, args...); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
			}
			docs, err := filepath.Glob(filepath.Join(dir, ".flow", "sessions", "*", "docs", "features", "f*.md"))
			if err != nil || len(docs) != n {
				t.Fatalf("feature docs: %d %v", len(docs), err)
			}
			ageAtime(t, docs[0])
			before := statDoc(t, docs[0])
			if _, err := os.ReadFile(docs[0]); err != nil {
				t.Fatal(err)
			}
			if statDoc(t, docs[0]).atime.Equal(before.atime) {
				t.Skip("this file system does not record reads (noatime)")
			}
			stats := map[string]docStat{}
			for _, doc := range docs {
				ageAtime(t, doc)
				stats[doc] = statDoc(t, doc)
			}
			if _, errs, code := flowdeck(t, dir, "flow", "note", "touches no feature"); code != 0 || errs != "" {
				t.Fatalf("note: exit %d: %s", code, errs)
			}
			for _, doc := range docs {
				if got := statDoc(t, doc); got != stats[doc] {
					what := "read"
					if got.ino != stats[doc].ino {
						what = "rewritten"
					}
					t.Errorf("the note %s %s", what, filepath.Base(doc))
				}
			}
		})
	}
}
