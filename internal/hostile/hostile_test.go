package hostile

import "testing"

func TestCheck(t *testing.T) {
	ok := []string{"plain\ttext\r\n", "\x1b[1;31mred\x1b[m", "\x1b[38;5;8mgrey\x1b[48;2;5;6;8m", "\x1b[4:3m"}
	bad := []string{Corpus, "\x1b[1;5mblink", "\x1b[8m", "\x1b]0;t\x07", "\x1b[2J", "a\u009bb", "a\x9bb", "\u202e", "\x00", "\a", "\b"}
	for _, s := range ok {
		if err := Check([]byte(s), true); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range bad {
		if Check([]byte(s), true) == nil {
			t.Errorf("%q passed", s)
		}
	}
	if Check([]byte("\x1b[1m"), false) == nil {
		t.Error("SGR passed where no ESC may")
	}
}
