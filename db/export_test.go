package db

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/model"
)

func TestExportImportVerifyRoundTrip(t *testing.T) {
	st, _ := populated(t)
	mustDo(t, st, model.PlanStart{Goal: "still active"})
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	mustDo(t, st, model.PlanApprove{})
	var buf bytes.Buffer
	rep, err := st.Export(&buf)
	if err != nil || len(rep.Problems) != 0 || rep.Sessions != 4 {
		t.Fatalf("export: %+v, %v", rep, err)
	}
	if n := strings.Count(buf.String(), "\n"); n != rep.Events+1 {
		t.Fatalf("%d lines for %d events and a header", n, rep.Events)
	}

	path := filepath.Join(t.TempDir(), DBFile)
	irep, err := Import(path, bytes.NewReader(buf.Bytes()), false, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if irep.Sessions != 4 || irep.Events != rep.Events {
		t.Fatalf("import: %+v, export: %+v", irep, rep)
	}
	back, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := back.Verify()
	if err != nil || len(v.Problems) != 0 || v.Events != rep.Events {
		t.Fatalf("verify after import: %+v, %v", v, err)
	}
	want, _ := st.Sessions()
	got, _ := back.Sessions()
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if string(wj) != string(gj) {
		t.Fatalf("sessions after import:\n%s\nwant\n%s", gj, wj)
	}
	active, _ := back.Active()
	if active == nil || active.Goal != "still active" {
		t.Fatalf("active after import: %+v", active)
	}
	if _, err := os.Stat(filepath.Join(back.DocsDir(active.ID), "features", "a.md")); err != nil {
		t.Fatalf("docs not rendered after import: %v", err)
	}
	// Importing again refuses to overwrite; --force moves the old file aside.
	_, err = Import(path, bytes.NewReader(buf.Bytes()), false, t0, Options{})
	if f, ok := model.AsFault(err); !ok || f.Code != model.CodeDatabaseExists || f.Path != path {
		t.Fatalf("second import: %v", err)
	}
	irep, err = Import(path, bytes.NewReader(buf.Bytes()), true, t0, Options{})
	if err != nil || irep.MovedAside == "" {
		t.Fatalf("forced import: %+v, %v", irep, err)
	}
	if _, err := os.Stat(irep.MovedAside); err != nil {
		t.Fatalf("the old database was not kept: %v", err)
	}
	again, err := Import(path, bytes.NewReader(buf.Bytes()), true, t0, Options{})
	if err != nil || again.MovedAside == irep.MovedAside {
		t.Fatalf("a second forced import in the same second: %+v, %v", again, err)
	}
}

func TestImportRejectsABadExportNamingTheLine(t *testing.T) {
	st := newStore(t)
	mustDo(t, st, model.PlanStart{Goal: "g"})
	mustDo(t, st, model.PlanApply{Plan: twoFeaturePlan()})
	var buf bytes.Buffer
	if _, err := st.Export(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	cases := map[string]struct{ text, want string }{
		"no header":   {strings.Join(lines[1:], ""), "line 1"},
		"gap":         {lines[0] + lines[2], "line 2"},
		"not json":    {lines[0] + lines[1] + "{oops\n", "line 3"},
		"empty":       {"", "empty"},
		"bad session": {lines[0] + strings.Replace(lines[1], `"session":"`, `"session":"../`, 1), "line 2"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), DBFile)
			_, err := Import(path, strings.NewReader(c.text), false, t0, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %q", err, c.want)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("a database was written for a bad export: %v", err)
			}
		})
	}
}

func TestDoctor(t *testing.T) {
	st, good := populated(t)
	rep, err := Doctor(st.path, Options{})
	if err != nil || !rep.OK || rep.Verify == nil || rep.Verify.Sessions != 3 {
		t.Fatalf("healthy: %+v, %v", rep, err)
	}
	page := os.Getpagesize()
	for name, data := range map[string][]byte{
		"truncated": good[:len(good)/2],
		"headers":   overwrite(append([]byte(nil), good...), 4*page, 16),
		"empty":     {},
	} {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(st.path, data, 0o644)
			rep, err := Doctor(st.path, Options{})
			if err != nil || rep.OK {
				t.Fatalf("damaged: %+v, %v", rep, err)
			}
			if rep.Fault == nil && len(rep.Integrity) == 0 {
				t.Fatalf("damaged but nothing reported: %+v", rep)
			}
			after, _ := os.ReadFile(st.path)
			if !bytes.Equal(after, data) {
				t.Fatal("doctor changed the file")
			}
		})
	}
}

// FuzzImport feeds hostile exports to import's reader, which checks and
// replays them before anything is written: it never panics, and what it
// accepts is a gapless log per session that replays. (The round trip onto
// disk is TestExportImportVerifyRoundTrip; here speed finds more.)
func FuzzImport(f *testing.F) {
	st := newStore(f)
	mustDo(f, st, model.PlanStart{Goal: "g"})
	mustDo(f, st, model.PlanApply{Plan: twoFeaturePlan()})
	mustDo(f, st, model.AddNote{Text: "n"})
	var buf bytes.Buffer
	if _, err := st.Export(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	lines := strings.SplitAfter(buf.String(), "\n")
	f.Add([]byte(lines[0] + lines[2] + lines[1]))
	f.Add([]byte(lines[0] + strings.Replace(lines[1], `"seq":1`, `"seq":18446744073709551615`, 1)))
	f.Add([]byte(`{"flowdeck_export":"flowdeck-events/1"}` + "\n" + `{"seq":1,"session":"s","type":"plan_applied"}`))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, sessions, err := readExport(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, imp := range sessions {
			replayed := &model.Session{}
			for i, raw := range imp.events {
				var rec storedEvent
				if err := json.Unmarshal(raw, &rec); err != nil || rec.Seq != uint64(i+1) {
					t.Fatalf("session %s event %d stored as %s (%v)", imp.id, i+1, raw, err)
				}
				if err := model.Apply(replayed, rec.Event); err != nil {
					t.Fatalf("accepted event does not replay: %v", err)
				}
			}
			a, _ := json.Marshal(replayed)
			b, _ := json.Marshal(imp.session)
			if !bytes.Equal(a, b) {
				t.Fatalf("session %s: stored events replay to another state", imp.id)
			}
		}
	})
}
