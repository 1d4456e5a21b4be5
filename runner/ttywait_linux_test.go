package runner

import (
	"os"
	"strconv"
	"testing"
)

func FuzzParseStat(f *testing.F) {
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("1 (sh) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0"))
	f.Add([]byte("7 (a) S 1 2 3) R 9 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0"))
	f.Add([]byte("9 (x"))
	f.Add([]byte(") S"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, ok := parseStat(b)
		if !ok && st != (stat{}) {
			t.Fatalf("rejected input left fields set: %+v", st)
		}
	})
}

// A command name with parentheses and spaces cannot shift the fields.
func TestParseStatTrustsOnlyTheLastParen(t *testing.T) {
	st, ok := parseStat([]byte("7 (a) S 1 2 3) R 9 4 5 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0"))
	if !ok || st.state != 'R' || st.session != 5 || st.start != 99 {
		t.Fatalf("got %+v %v", st, ok)
	}
	self, ok := procStat(os.Getpid())
	if !ok || self.state != 'R' && self.state != 'S' {
		t.Fatalf("own stat: %+v %v (pid %s)", self, ok, strconv.Itoa(os.Getpid()))
	}
}
