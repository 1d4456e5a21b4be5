package ui

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ui/internal/uitest"
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
	m := New(testProject(st, darkConfig(), func() time.Time { return t0 }), Options{})
	m.tick = noTick
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.loaded = true
	cmd := m.setSession(s)
	m.dialogs = nil // the auto review prompt is not what this measures
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
				m.Update(uitest.Key("j"))
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
		m.Update(uitest.Key(k))
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
	benchFirstFrame(b, st, 10)
}

// benchFirstFrame times New to the first full frame (session loaded, detail
// rendered) on st, and reports the median of n more runs.
func benchFirstFrame(b *testing.B, st *db.Store, n int) {
	first := func() {
		m := New(testProject(st, darkConfig(), nil), Options{})
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
	b.ReportMetric(float64(medianOf(n, first).Microseconds())/1000, "median-ms")
}

// bigRun stores a finished run of n lines (coloured every tenth line).
func bigRun(tb testing.TB, st *db.Store, n int) string {
	tb.Helper()
	w, err := st.StartRun(model.RunRecord{Argv: []string{"make", "build"}, Actor: "bench", Start: t0})
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
			if err := writeRaw(w, buf); err != nil {
				tb.Fatal(err)
			}
			buf = buf[:0]
		}
	}
	if err := writeRaw(w, buf); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Finish(model.RunRecord{Argv: []string{"make", "build"}, Outcome: "exited"}, 0); err != nil {
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
			bigRun(b, storeOf(b, m), 100_000)
			runAll(m, m.loadCmd())
			if m.output.Len() < 100_000 {
				b.Fatalf("output has %d lines", m.output.Len())
			}
			m.Update(uitest.Key("5"))
			if wrap {
				m.Update(uitest.Key("w"))
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

// BenchmarkKeyLatencyUnderFlood runs the real program (renderer included)
// while a run floods 20 MB/s of output into the store and the output pane
// follows it, and measures for each key press the time until a frame that
// includes its effect is written to the terminal: the wait in the event
// queue, Update, View, the wait for the renderer's next tick (60 per second)
// and the diff it writes. Target: under 50 ms. It also reports how long the
// key waited before Update saw it (queue-p99) and the longest Update and
// View the flood caused.
func BenchmarkKeyLatencyUnderFlood(b *testing.B) {
	st := newStore(b)
	scenario(b, st, "running")
	w, err := st.StartRun(model.RunRecord{Argv: []string{"flood"}, Actor: "bench", Start: t0.Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	lm := &latencyModel{Model: New(testProject(st, darkConfig(), nil), Options{NoColor: true}), sent: map[int]time.Time{}}
	out := &frameWriter{lm: lm}
	p := tea.NewProgram(lm, tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignals(), tea.WithWindowSize(160, 48))
	done := make(chan struct{})
	go func() { _, _ = p.Run(); close(done) }()

	stop := make(chan struct{})
	flooding := make(chan struct{})
	go func() {
		defer close(flooding)
		chunk := []byte(strings.Repeat("compiling package with a long line of flood output 0123456789\n", 3300)) // ~200 KB
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				writeRaw(w, chunk)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	var gcBefore runtime.MemStats
	runtime.ReadMemStats(&gcBefore)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		lm.mu.Lock()
		lm.sent[i] = time.Now()
		lm.mu.Unlock()
		p.Send(tea.KeyPressMsg{Code: rune(0xE000 + i%4096)})
		time.Sleep(20 * time.Millisecond)
	}
	b.StopTimer()
	time.Sleep(100 * time.Millisecond) // the last frames
	close(stop)
	<-flooding
	var gcAfter runtime.MemStats
	runtime.ReadMemStats(&gcAfter)
	p.Quit()
	<-done
	_, _ = w.Finish(model.RunRecord{Argv: []string{"flood"}, Outcome: "exited"}, 0)

	lm.mu.Lock()
	defer lm.mu.Unlock()
	if len(lm.frame) == 0 {
		b.Fatal("no key's frame was written")
	}
	pct := func(ds []time.Duration, p float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[min(len(ds)-1, int(float64(len(ds))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(lm.frame, 0.5), "p50-ms")
	b.ReportMetric(pct(lm.frame, 0.99), "p99-ms")
	b.ReportMetric(pct(lm.frame, 1), "max-ms")
	b.ReportMetric(pct(lm.queue, 0.99), "queue-p99-ms")
	b.ReportMetric(pct(lm.toView, 0.99), "to-view-p99-ms")
	b.ReportMetric(float64(lm.maxUpdate.Microseconds())/1000, "max-update-ms")
	b.ReportMetric(float64(lm.maxView.Microseconds())/1000, "max-view-ms")
	b.ReportMetric(float64(gcAfter.NumGC-gcBefore.NumGC), "GCs")
	b.ReportMetric(float64(lm.Model.output.Len()), "lines-shown")
}

// latencyModel wraps the cockpit for BenchmarkKeyLatencyUnderFlood: it takes
// the benchmark's key presses (private-use runes, bound to nothing), times
// every Update and View, and names the last key handled in the window
// title, which the renderer writes with the next frame.
type latencyModel struct {
	*Model
	mu                 sync.Mutex
	sent               map[int]time.Time
	handled            int // keys handled so far
	written            int // keys whose frame was written
	viewed             int
	toView             []time.Duration
	queue, frame       []time.Duration
	maxUpdate, maxView time.Duration
}

func (l *latencyModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	start := time.Now()
	if k, ok := msg.(tea.KeyPressMsg); ok && k.Code >= 0xE000 && k.Code < 0xF000 {
		l.mu.Lock()
		if at, ok := l.sent[l.handled]; ok {
			l.queue = append(l.queue, start.Sub(at))
		}
		l.handled++
		l.mu.Unlock()
		return l, nil
	}
	_, cmd := l.Model.Update(msg)
	d := time.Since(start)
	l.mu.Lock()
	l.maxUpdate = max(l.maxUpdate, d)
	l.mu.Unlock()
	return l, cmd
}

func (l *latencyModel) View() tea.View {
	start := time.Now()
	v := l.Model.View()
	l.mu.Lock()
	l.maxView = max(l.maxView, time.Since(start))
	v.WindowTitle = fmt.Sprintf("keys %d", l.handled)
	for ; l.viewed < l.handled; l.viewed++ {
		if at, ok := l.sent[l.viewed]; ok {
			l.toView = append(l.toView, time.Since(at))
		}
	}
	l.mu.Unlock()
	return v
}

// frameWriter is the program's terminal: a frame that sets the title
// "keys N" shows the effect of the first N keys.
type frameWriter struct{ lm *latencyModel }

func (f *frameWriter) Write(p []byte) (int, error) {
	now := time.Now()
	for rest := p; ; {
		i := bytes.Index(rest, []byte("\x1b]2;keys "))
		if i < 0 {
			break
		}
		rest = rest[i+len("\x1b]2;keys "):]
		j := bytes.IndexByte(rest, 0x07)
		if j < 0 {
			break
		}
		n, err := strconv.Atoi(string(rest[:j]))
		if err != nil {
			continue
		}
		l := f.lm
		l.mu.Lock()

		for ; l.written < n; l.written++ {
			if at, ok := l.sent[l.written]; ok {
				l.frame = append(l.frame, now.Sub(at))
			}
		}
		l.mu.Unlock()
	}
	return len(p), nil
}
