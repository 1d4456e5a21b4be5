package output

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowdeck/flowdeck/ui/styles"
)

func lines(from, n int) []Line {
	out := make([]Line, n)
	for i := range out {
		s := fmt.Sprintf("line %d", from+i)
		out[i] = Line{Text: s, Plain: s}
	}
	return out
}

func TestModelScrollSearchAndBound(t *testing.T) {
	m := New(styles.New(true, false))
	m.SetSize(40, 10)
	m.Append(lines(1, 100), nil)
	if v := m.View(); !strings.HasPrefix(v[9], "line 100") {
		t.Fatalf("follow did not show the end: %q", v[9])
	}
	m.Top()
	if v := m.View(); !strings.HasPrefix(v[0], "line 1 ") {
		t.Fatalf("top: %q", v[0])
	}
	if n := m.SetSearch("LINE 5"); n != 11 { // 5, 50..59
		t.Fatalf("matches = %d", n)
	}
	if i, n := m.Next(1); i != 2 || n != 11 {
		t.Fatalf("next = %d/%d", i, n)
	}
	if !m.GotoLine(42) || !strings.HasPrefix(m.View()[0], "line 42") {
		t.Fatalf("goto: %q", m.View()[0])
	}
	// Wrap: a long line takes several rows.
	m.Reset("r", "", "")
	m.Append([]Line{{Text: strings.Repeat("x", 100), Plain: strings.Repeat("x", 100)}, {Text: "end", Plain: "end"}}, nil)
	m.ToggleWrap()
	if v := m.View(); !strings.HasPrefix(v[0], strings.Repeat("x", 40)) || !strings.HasPrefix(v[3], "end") {
		t.Fatalf("wrap: %q", v[:4])
	}
	// A flood is bounded; line numbers stay those of the run.
	m.Reset("big", "", "")
	for i := 0; i < 3; i++ {
		m.Append(lines(1+i*MaxLines/2, MaxLines/2), nil)
	}
	if m.Len() > MaxLines || m.dropped == 0 {
		t.Fatalf("len %d dropped %d", m.Len(), m.dropped)
	}
	last := 3 * MaxLines / 2
	if !m.GotoLine(last) || !strings.HasPrefix(m.View()[0], fmt.Sprintf("line %d", last)) {
		t.Fatalf("goto after drop: %q", m.View()[0])
	}
	if m.GotoLine(1) {
		t.Fatal("a dropped line is reported as shown")
	}
}
