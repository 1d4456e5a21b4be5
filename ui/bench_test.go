package ui

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	bolt "go.etcd.io/bbolt"

	"flowdeck/db"
	"flowdeck/model"
)

// bigSession builds, in memory, a session of n features in a DAG (each waits
// for the features 7 and 10 before it), the first done features completed
// with evidence and reviews, the next one awaiting review.
func bigSession(tb testing.TB, n, done int) (*model.Session, []model.Event) {
	tb.Helper()
	now := t0
	var s *model.Session
	var all []model.Event
	do := func(a model.Action) {
		now = now.Add(time.Second)
		next, evs, err := model.Execute(s, a, model.Context{Now: now, Actor: "bench"})
		if err != nil {
			tb.Fatalf("%s: %v", a.Name(), err)
		}
		s, all = next, append(all, evs...)
	}
	do(model.PlanStart{ID: "20260314-bench", Goal: fmt.Sprintf("A plan of %d features", n)})
	feats := make([]model.Feature, n)
	for i := range feats {
		f := model.Feature{ID: fmt.Sprintf("feature-%03d", i), Title: fmt.Sprintf("Feature number %d of the big plan", i), Verification: []string{"go test ./..."}}
		for _, d := range []int{7, 10} {
			if i-d >= 0 {
				f.DependsOn = append(f.DependsOn, fmt.Sprintf("feature-%03d", i-d))
			}
		}
		feats[i] = f
	}
	do(model.PlanApply{Plan: model.Plan{Summary: "big", Features: feats}})
	do(model.PlanApprove{})
	for range done {
		do(model.RunStart{})
		id := s.Execution.ActiveFeature
		do(model.Validate{Feature: id, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."})
		do(model.ReviewFeature{Feature: id, Decision: model.ReviewApproved})
		do(model.RunComplete{Feature: id, Outcome: model.OutcomeCompleted})
	}
	do(model.RunStart{})
	do(model.Validate{Feature: s.Execution.ActiveFeature, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."})
	return s, all
}

// benchModel is a cockpit showing s at w×h with its detail rendered.
func benchModel(tb testing.TB, s *model.Session, w, h int) *Model {
	tb.Helper()
	st := newStore(tb)
	m := New(st, Options{Now: func() time.Time { return t0 }, Config: darkConfig()})
	m.tick = noTick
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.loaded = true
	cmd := m.setSession(s)
	m.prompt = nil // the auto review prompt is not what this measures
	runAll(m, cmd)
	runAll(m, m.relayout())
	return m
}

// runAll runs a command tree synchronously (no ticks are scheduled here).
func runAll(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			runAll(m, c)
		}
	case nil:
	default:
		_, next := m.Update(msg)
		runAll(m, next)
	}
}

// medianOf times f k times and returns the median.
func medianOf(k int, f func()) time.Duration {
	ds := make([]time.Duration, k)
	for i := range ds {
		start := time.Now()
		f()
		ds[i] = time.Since(start)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[k/2]
}

// BenchmarkView500Features: View() of a 500-feature session, with the
// features list scrolled to the middle and the graph following. Target: median
// under 2 ms.
func BenchmarkView500Features(b *testing.B) {
	s, _ := bigSession(b, 500, 60)
	for _, size := range [][2]int{{80, 24}, {160, 48}, {240, 70}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			m := benchModel(b, s, size[0], size[1])
			for range 250 {
				m.Update(keyMsg("j"))
			}
			if v := m.View(); len(v.Content) == 0 {
				b.Fatal("empty frame")
			}
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
			b.StopTimer()
			b.ReportMetric(float64(medianOf(200, func() { _ = m.View() }).Microseconds())/1000, "median-ms")
		})
	}
}

// BenchmarkMove500Features: one j press (Update and View) in the same
// session: what a key costs when the selection moves and the graph follows.
func BenchmarkMove500Features(b *testing.B) {
	s, _ := bigSession(b, 500, 60)
	m := benchModel(b, s, 160, 48)
	i := 0
	for b.Loop() {
		k := "j"
		if i++; i%400 >= 200 {
			k = "k"
		}
		m.Update(keyMsg(k))
		_ = m.View()
	}
}

// seedEventLog writes a session whose event log holds n events straight into
// the bbolt file, in the layout the README documents (meta, sessions,
// events/<id>), because n calls of Store.Do (docs rendered after each) would
// take minutes. The events come from model.Execute, as Do's would.
func seedEventLog(tb testing.TB, n int) *db.Store {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	s, events := bigSession(tb, 20, 3)
	now := t0
	for len(events) < n {
		now = now.Add(time.Second)
		var a model.Action = model.AddNote{Text: fmt.Sprintf("note %d with some realistic length of text in it", len(events))}
		if len(events)%3 == 0 {
			a = model.Validate{Feature: s.Execution.ActiveFeature, Status: model.ValidationPassed, Scope: model.ScopeTargeted, Command: "go test ./..."}
		}
		next, evs, err := model.Execute(s, a, model.Context{Now: now, Actor: "seed"})
		if err != nil {
			tb.Fatal(err)
		}
		s, events = next, append(events, evs...)
	}
	bdb, err := bolt.Open(path, 0o644, &bolt.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		log, err := tx.Bucket([]byte("events")).CreateBucketIfNotExists([]byte(s.ID))
		if err != nil {
			return err
		}
		log.FillPercent = 1
		key := make([]byte, 8)
		for _, e := range events {
			raw, _ := json.Marshal(e)
			binary.BigEndian.PutUint64(key, e.Seq)
			if err := log.Put(key, raw); err != nil {
				return err
			}
		}
		raw, _ := json.Marshal(s)
		if err := tx.Bucket([]byte("sessions")).Put([]byte(s.ID), raw); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("active"), []byte(s.ID))
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkFirstFrame100kEvents: from New to the first full frame (session
// loaded, detail rendered by glamour) on a project whose log holds 100,000
// events. Target: under 150 ms.
func BenchmarkFirstFrame100kEvents(b *testing.B) {
	st := seedEventLog(b, 100_000)
	if s, err := st.Active(); err != nil || s.Seq < 100_000 {
		b.Fatalf("seeded %v, %v", s, err)
	}
	first := func() {
		m := New(st, Options{Config: darkConfig()})
		m.tick = noTick
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		runAll(m, m.Init())
		if m.sess == nil || len(m.detail.Lines()) == 0 {
			b.Fatal("no full frame")
		}
		_ = m.View()
	}
	b.ResetTimer()
	for b.Loop() {
		first()
	}
	b.StopTimer()
	b.ReportMetric(float64(medianOf(10, first).Microseconds())/1000, "median-ms")
}

// bigRun stores a finished run of n lines (coloured every tenth line).
func bigRun(tb testing.TB, st *db.Store, n int) string {
	tb.Helper()
	w, err := st.StartRun(db.RunRecord{Argv: []string{"make", "build"}, Actor: "bench", Start: t0})
	if err != nil {
		tb.Fatal(err)
	}
	var buf []byte
	for i := range n {
		if i%10 == 0 {
			buf = fmt.Appendf(buf, "\x1b[32mok\x1b[0m   step %d of the build compiled package number %d with some flags\n", i, i)
		} else {
			buf = fmt.Appendf(buf, "     step %d of the build compiled package number %d with some flags\n", i, i)
		}
		if len(buf) > 1<<20 {
			if _, err := w.Write(buf); err != nil {
				tb.Fatal(err)
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Finish(db.RunRecord{Argv: []string{"make", "build"}, Outcome: "exited"}, 0); err != nil {
		tb.Fatal(err)
	}
	return w.ID()
}

// BenchmarkViewRun100kLines: View() with a 500-feature session and a
// selected run of 100,000 lines in the output pane, scrolled to the middle,
// wrapped and not. Target: median under 2 ms.
func BenchmarkViewRun100kLines(b *testing.B) {
	s, _ := bigSession(b, 500, 60)
	for _, wrap := range []bool{false, true} {
		b.Run(fmt.Sprintf("wrap=%v", wrap), func(b *testing.B) {
			m := benchModel(b, s, 160, 48)
			bigRun(b, m.st, 100_000)
			runAll(m, m.loadCmd())
			if m.output.Len() < 100_000 {
				b.Fatalf("output has %d lines", m.output.Len())
			}
			m.Update(keyMsg("5"))
			if wrap {
				m.Update(keyMsg("w"))
			}
			m.output.GotoLine(50_000)
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
			b.StopTimer()
			b.ReportMetric(float64(medianOf(200, func() { _ = m.View() }).Microseconds())/1000, "median-ms")
		})
	}
}

// BenchmarkKeyLatencyUnderFlood runs the real program while a run floods
// 20 MB/s of output into the store, and measures how long key presses wait
// before Update sees them (View, measured above, adds well under 2 ms).
// Target: under 50 ms.
func BenchmarkKeyLatencyUnderFlood(b *testing.B) {
	st := newStore(b)
	scenario(b, st, "running")
	w, err := st.StartRun(db.RunRecord{Argv: []string{"flood"}, Actor: "bench", Start: t0.Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[int]time.Time{}
	var lat []time.Duration
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		if k, ok := msg.(tea.KeyPressMsg); ok && k.Code >= 0xE000 {
			mu.Lock()
			if at, ok := sent[int(k.Code)]; ok {
				lat = append(lat, time.Since(at))
			}
			mu.Unlock()
			return nil
		}
		return msg
	}
	m := New(st, Options{Config: darkConfig(), NoColor: true})
	tm := teatest.NewTestModel(b, m, teatest.WithInitialTermSize(160, 48), teatest.WithProgramOptions(tea.WithFilter(filter)))
	go func() { _, _ = io.Copy(io.Discard, tm.Output()) }()

	stop := make(chan struct{})
	go func() {
		chunk := []byte(strings.Repeat("compiling package with a long line of flood output 0123456789\n", 3300)) // ~200 KB
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_, _ = w.Write(chunk)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		code := 0xE000 + i%4096
		mu.Lock()
		sent[code] = time.Now()
		mu.Unlock()
		tm.Send(tea.KeyPressMsg{Code: rune(code)})
		time.Sleep(20 * time.Millisecond)
	}
	b.StopTimer()
	close(stop)
	_, _ = w.Finish(db.RunRecord{Argv: []string{"flood"}, Outcome: "exited"}, 0)
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(b, teatest.WithFinalTimeout(10*time.Second))
	mu.Lock()
	defer mu.Unlock()
	if len(lat) == 0 {
		b.Fatal("no key reached the model")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}
