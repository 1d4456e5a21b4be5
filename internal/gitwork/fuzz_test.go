package gitwork

import (
	"strings"
	"testing"
)

// The parsers read git's output, where paths and branch names are whatever
// a repository holds: they must never panic, and never invent an entry.
func FuzzParseWorktrees(f *testing.F) {
	f.Add("worktree /r\x00HEAD 0123\x00branch refs/heads/main\x00\x00worktree /r/.flow/worktrees/a\x00HEAD 4567\x00detached\x00\x00")
	f.Add("worktree /odd\npath\x00bare\x00\x00")
	f.Add("")
	f.Add("HEAD x\x00branch y\x00")
	f.Fuzz(func(t *testing.T, out string) {
		list := parseWorktrees(out)
		if n := strings.Count(out, "worktree"); len(list) > n {
			t.Fatalf("%d worktrees from %d worktree fields", len(list), n)
		}
	})
}

func FuzzParseMergeTree(f *testing.F) {
	f.Add("2e48f729852a42e22db7969ae822bcadb513255a\x00f\x00")
	f.Add("2e48f729852a42e22db7969ae822bcadb513255a\x00a b\x00a b\x00new\nline\x00\x00messages")
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		_, paths := parseMergeTree(out)
		seen := map[string]bool{}
		for _, p := range paths {
			if p == "" || seen[p] {
				t.Fatalf("path %q empty or repeated in %q", p, paths)
			}
			seen[p] = true
		}
	})
}
