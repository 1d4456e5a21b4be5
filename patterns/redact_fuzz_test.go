package patterns

import (
	"bytes"
	"strings"
	"testing"
)

// showsSecret reports whether a built-in rule still finds something in
// the text a reader would see of out: its printable text, or what its
// overwrites leave on screen.
func showsSecret(rs *ruleSet, out []byte) []byte {
	for _, view := range [][]byte{flatText(nil, out), screenText(out)} {
		if red := rs.stateless(view); !bytes.Equal(red, view) {
			return view
		}
	}
	return nil
}

// FuzzRedactLine: whatever a line holds — escape sequences, controls,
// invalid UTF-8, a secret cut anywhere by a sequence — what Line returns
// shows no secret, neither as printable text nor on screen.
func FuzzRedactLine(f *testing.F) {
	for _, fam := range secretFamilies {
		for _, v := range variants(fam.line, fam.value) {
			f.Add([]byte(v), uint8(len(fam.value)/3), []byte("\x1b[0m"))
		}
	}
	f.Add([]byte("XXXXabcdefghijklmnopqrstuvwxyz0123456789\rghp_"), uint8(0), []byte(""))
	f.Add([]byte("\x1b]8;;https://x/?token=abc\x1b\\l\x1b]8;;\x1b\\"), uint8(3), []byte("\x9b"))
	f.Fuzz(func(t *testing.T, line []byte, at uint8, insert []byte) {
		line = bytes.ReplaceAll(line, []byte("\n"), nil)
		insert = bytes.ReplaceAll(insert, []byte("\n"), nil)
		i := int(at) % (len(line) + 1)
		in := append(append(append([]byte(nil), line[:i]...), insert...), line[i:]...)
		r, _ := NewRedactor(nil)
		out := r.Line(in)
		if view := showsSecret(r.rules, out); view != nil {
			t.Fatalf("Line(%q) = %q shows a secret: %q", in, out, view)
		}
	})
}

// FuzzRedactCommand: command text of any shape is redacted without a
// panic, redacting again changes nothing, and a value after --password in
// an argument list never survives.
func FuzzRedactCommand(f *testing.F) {
	f.Add("./deploy --token abc && mysql -p 'x y' db", "s3cr3tvalue")
	f.Add("curl -u bob:pw https://x \"unterminated", "hunter2")
	f.Add("sh -c 'echo \x1b[1mghp_abcdefghijklmnopqrstuvwxyz0123'", "v")
	f.Fuzz(func(t *testing.T, cmd, secret string) {
		r, _ := NewRedactor(nil)
		once := r.Command(cmd)
		if twice := r.Command(once); twice != once {
			t.Fatalf("Command(%q) = %q, then %q", cmd, once, twice)
		}
		argv := append(strings.Fields(cmd), "--password", secret)
		if got := r.Argv(argv); !strings.Contains(got[len(got)-1], Redacted) {
			t.Fatalf("Argv(%q) kept the password: %q", argv, got)
		}
	})
}
