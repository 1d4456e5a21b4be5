package lazyre

import "testing"

func TestNewCompilesOnce(t *testing.T) {
	re := New(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("b") {
		t.Fatalf("%v matches wrongly", first)
	}
	if re() != first {
		t.Error("a second call compiled again")
	}
}

func TestNewInvalidPanicsOnUse(t *testing.T) {
	re := New(`(`) // no panic here: nothing is compiled yet
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic at first use")
		}
	}()
	re()
}
