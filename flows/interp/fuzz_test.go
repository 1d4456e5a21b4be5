package interp

import (
	"os/exec"
	"strings"
	"testing"
)

// FuzzText: interpolation never panics, and without variables it only
// turns \$ into $.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "$", "$$", `\$`, "$a.b.0", "$name.txt", "$a.", "x$", `\\$a`, "$_", "$a.0.b",
		"x=$(( $count << 1 ))", "cat <<-'EOF'\n\t$name\n\tEOF", "`echo \\`echo $name\\``", `"${x:-$name}" ${y#$name}`, "(( x <<= $count ))\n$name", "a[$count]=$name"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got := Text(src, nil); src != "" && !strings.Contains(src, "$$") && got != strings.ReplaceAll(src, `\$`, "$") {
			t.Fatalf("Text(%q, nil) = %q", src, got)
		}
		Text(src, vars)
		for _, d := range []string{"sh", "python", "node", "ruby", "perl"} {
			Code(src, d, vars)
		}
	})
}

// FuzzShellValue: any value inserted into a shell script, unquoted, inside
// "...", inside '...' and inside $(...), reaches the command unchanged.
func FuzzShellValue(f *testing.F) {
	for _, v := range hostile {
		f.Add(v)
	}
	f.Add("")
	f.Add("'\"`$\\\n")
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsRune(v, 0) {
			return // cannot travel through argv
		}
		code, err := shellSh(`printf '%s\0' $v "$v" '$v' "$(printf '%s' "$v")"`, map[string]any{"v": v})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("sh", "-c", code).Output()
		if err != nil {
			t.Fatalf("%q: %v\n%s", v, err, code)
		}
		got := strings.Split(string(out), "\x00")
		want := []string{v, v, v, strings.TrimRight(v, "\n"), ""}
		if len(got) != len(want) {
			t.Fatalf("%q: got %q\n%s", v, got, code)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%q: context %d gave %q\n%s", v, i, got[i], code)
			}
		}
	})
}
