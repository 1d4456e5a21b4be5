package capture

import (
	"bytes"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/patterns"
)

// FuzzSinkSplits: however a stream is cut into writes, what is stored is
// what redacting the unsplit stream line by line gives, so a secret (or an
// escape sequence inside one) split across pty reads is found as if it
// had arrived in one piece.
func FuzzSinkSplits(f *testing.F) {
	f.Add([]byte("ok\nid AKIA\x1b[1mIOSFODNN7EXAMPLE\x1b[0m end\nmore\n"), uint16(9), uint16(17))
	f.Add([]byte("\x1b[32m{\"password\":\"hunter2xyz\"}\x1b[0m\r\n"), uint16(14), uint16(20))
	f.Add([]byte("plain\npass\x1b[1mword=\x1b[0mhunter2\nXXXXabcdefghijklmnopqrstuvwxyz0123\rghp_\ntail"), uint16(5), uint16(40))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n"), uint16(20), uint16(33))
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint16) {
		if len(data) > 1<<14 {
			return
		}
		a, b := int(cut1)%(len(data)+1), int(cut2)%(len(data)+1)
		a, b = min(a, b), max(a, b)
		st := newStore(t)
		w, err := st.StartRun(model.RunRecord{ID: db.NewRunID(time.Now()), Argv: []string{"fuzz"}, Start: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		red, _ := patterns.NewRedactor(nil)
		s := newSink(w, patterns.Builtin().Classifier([]string{"fuzz"}, patterns.Options{}), red, nil)
		for _, piece := range [][]byte{data[:a], data[a:b], data[b:]} {
			s.Write(piece)
		}
		s.close()
		rec, err := w.Finish(model.RunRecord{ID: w.ID(), Argv: []string{"fuzz"}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := output(t, st, rec.ID)
		ref, _ := patterns.NewRedactor(nil)
		var want []byte
		lines := bytes.Split(data, []byte("\n"))
		for i, l := range lines {
			if i == len(lines)-1 && len(l) == 0 {
				break
			}
			want = append(want, ref.Line(l)...)
			if i < len(lines)-1 {
				want = append(want, '\n')
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("stream %q cut at %d, %d:\nstored %q\n  want %q", data, a, b, got, want)
		}
	})
}
