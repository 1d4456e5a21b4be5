package gitwork

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSnapshotLeavesThePersonsStateAlone: a snapshot holds tracked changes
// and untracked files, not ignored files nor .flow/, and the index, HEAD
// and the files on disk are as they were.
func TestSnapshotLeavesThePersonsStateAlone(t *testing.T) {
	r := newRepo(t)
	write(t, r.Dir, ".gitignore", "*.log\n")
	gitT(t, r.Dir, "add", ".gitignore")
	gitT(t, r.Dir, "commit", "-q", "-m", "ignore logs")
	write(t, r.Dir, "a.txt", "one\nTWO\nthree\n") // tracked, changed, not staged
	write(t, r.Dir, "new.go", "package x\n")      // untracked
	write(t, r.Dir, "staged.txt", "staged\n")
	gitT(t, r.Dir, "add", "staged.txt") // staged by the person
	write(t, r.Dir, "debug.log", "noise\n")
	if err := os.MkdirAll(filepath.Join(r.Dir, ".flow"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, r.Dir, ".flow/flowdeck.db", "db")
	head := gitT(t, r.Dir, "rev-parse", "HEAD")
	statusBefore := gitT(t, r.Dir, "status", "--porcelain")
	indexBefore, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))

	tree, err := r.Snapshot(r.Dir, ".flow")
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(gitT(t, r.Dir, "ls-tree", "-r", "--name-only", tree))
	for _, want := range []string{".gitignore", "a.txt", "new.go", "staged.txt"} {
		if !slices.Contains(files, want) {
			t.Errorf("snapshot lacks %s: %v", want, files)
		}
	}
	for _, not := range []string{"debug.log", ".flow/flowdeck.db"} {
		if slices.Contains(files, not) {
			t.Errorf("snapshot holds %s: %v", not, files)
		}
	}
	if got := gitT(t, r.Dir, "show", tree+":a.txt"); got != "one\nTWO\nthree" {
		t.Errorf("a.txt in the snapshot = %q", got)
	}
	if gitT(t, r.Dir, "rev-parse", "HEAD") != head {
		t.Error("HEAD moved")
	}
	if got := gitT(t, r.Dir, "status", "--porcelain"); got != statusBefore {
		t.Errorf("status changed:\n%s\nwas\n%s", got, statusBefore)
	}
	indexAfter, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	if !bytes.Equal(indexBefore, indexAfter) {
		t.Error("the person's index file changed")
	}

	// The same state is the same tree; a change is another.
	if again, err := r.Snapshot(r.Dir, ".flow"); err != nil || again != tree {
		t.Fatalf("second snapshot = %s %v, want %s", again, err, tree)
	}
	write(t, r.Dir, ".flow/other", "x") // .flow never counts
	if again, _ := r.Snapshot(r.Dir, ".flow"); again != tree {
		t.Error("a change under .flow changed the snapshot")
	}
	write(t, r.Dir, "new.go", "package y\n")
	changed, err := r.Snapshot(r.Dir, ".flow")
	if err != nil || changed == tree {
		t.Fatalf("a changed file left the snapshot at %s (%v)", changed, err)
	}
	if files, err := r.Changed(tree, changed); err != nil || !slices.Equal(files, []string{"new.go"}) {
		t.Fatalf("Changed = %v %v", files, err)
	}
}

// TestKeptTreesSurviveGC: a kept tree and its blobs outlive git gc
// --prune=now; an unkept snapshot does not.
func TestKeptTreesSurviveGC(t *testing.T) {
	r := newRepo(t)
	write(t, r.Dir, "kept.txt", "kept content\n")
	kept, err := r.Snapshot(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Keep(kept); err != nil {
		t.Fatal(err)
	}
	if err := r.Keep(kept); err != nil {
		t.Fatalf("keeping twice: %v", err)
	}
	write(t, r.Dir, "kept.txt", "lost content\n")
	lost, err := r.Snapshot(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, r.Dir, "gc", "-q", "--prune=now")
	if got := gitT(t, r.Dir, "show", kept+":kept.txt"); got != "kept content" {
		t.Fatalf("kept tree lost its file: %q", got)
	}
	if exec.Command("git", "-C", r.Dir, "cat-file", "-e", lost).Run() == nil {
		t.Error("an unkept snapshot survived gc --prune=now; the test proves nothing")
	}
}

// TestSnapshotInSubdirectoryAndWorktree: the exclusion is relative to the
// directory given (a project below the top), and a linked worktree's
// snapshot is of its own files.
func TestSnapshotInSubdirectoryAndWorktree(t *testing.T) {
	r := newRepo(t)
	sub := filepath.Join(r.Dir, "proj")
	if err := os.MkdirAll(filepath.Join(sub, ".flow"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, sub, ".flow/x", "x")
	write(t, sub, "code.go", "package p\n")
	tree, err := r.Snapshot(sub, ".flow")
	if err != nil {
		t.Fatal(err)
	}
	files := gitT(t, r.Dir, "ls-tree", "-r", "--name-only", tree)
	if !strings.Contains(files, "proj/code.go") || strings.Contains(files, ".flow") {
		t.Fatalf("subdirectory snapshot: %s", files)
	}

	wt := filepath.Join(r.Dir, ".flow", "worktrees", "wt")
	gitT(t, r.Dir, "worktree", "add", "-q", "-b", "feature", wt)
	write(t, wt, "only-here.txt", "wt\n")
	w, err := r.Linked(wt, "feature")
	if err != nil || w == nil {
		t.Fatalf("Linked: %v %v", w, err)
	}
	wtTree, err := w.Snapshot(wt)
	if err != nil {
		t.Fatal(err)
	}
	files = gitT(t, r.Dir, "ls-tree", "-r", "--name-only", wtTree)
	if !strings.Contains(files, "only-here.txt") || strings.Contains(files, "code.go") {
		t.Fatalf("worktree snapshot: %s", files)
	}
}

func TestStatAndDiff(t *testing.T) {
	r := newRepo(t)
	base, _ := r.Snapshot(r.Dir)
	write(t, r.Dir, "a.txt", "one\n2\nthree\nfour\n")
	gitT(t, r.Dir, "mv", "a.txt", "b.txt")
	write(t, r.Dir, "bin.dat", "\x00\x01\x02")
	write(t, r.Dir, "sp ace.txt", "x\n")
	after, _ := r.Snapshot(r.Dir)
	stats, err := r.Stat(base, after)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]FileStat{}
	for _, s := range stats {
		byPath[s.Path] = s
	}
	if s := byPath["b.txt"]; s.OldPath != "a.txt" || s.Added != 2 || s.Removed != 1 {
		t.Errorf("rename stat = %+v (all %+v)", s, stats)
	}
	if s := byPath["bin.dat"]; !s.Binary {
		t.Errorf("binary stat = %+v", s)
	}
	if s := byPath["sp ace.txt"]; s.Added != 1 {
		t.Errorf("spaced path stat = %+v", s)
	}
	var out bytes.Buffer
	if err := r.Diff(base, after, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"diff --git a/a.txt b/b.txt", "rename from a.txt", "+four", "-two"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("diff lacks %q:\n%s", want, out.String())
		}
	}
	if err := r.Diff("--output=/tmp/x", after, &out); err == nil {
		t.Error("an option as a tree was accepted")
	}
}

// TestNoRepositoryHookOrFsmonitorRuns: an fsmonitor, hooks and a clean
// filter planted in the repository's config do not run during a snapshot
// or a commit made by flowdeck, and the files are taken as they are.
func TestNoRepositoryHookOrFsmonitorRuns(t *testing.T) {
	r := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "planted")
	os.WriteFile(script, []byte("#!/bin/sh\necho ran >> "+marker+"\n"), 0o755)
	hooks := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hooks, 0o755)
	for _, h := range []string{"post-commit", "pre-commit", "reference-transaction"} {
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\n"+script+"\n"), 0o755)
	}
	gitT(t, r.Dir, "config", "core.fsmonitor", script)
	gitT(t, r.Dir, "config", "core.hooksPath", hooks)
	// Clean filters that are required, named with a dot and with an '='
	// (both are names git allows): switched off, they must neither run
	// nor fail the add.
	for _, name := range []string{"ev.il", "a=b"} {
		gitT(t, r.Dir, "config", "filter."+name+".clean", script)
		gitT(t, r.Dir, "config", "filter."+name+".required", "true")
	}
	write(t, r.Dir, ".gitattributes", "*.txt filter=ev.il\n*.md filter=a=b\n")
	write(t, r.Dir, "new.md", "y\n")
	write(t, r.Dir, "new.txt", "x\n")
	tree, err := r.Snapshot(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Keep(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitAll("flowdeck commit"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Fatalf("planted code ran: %q", data)
	}
	if got := gitT(t, r.Dir, "show", tree+":new.txt") + gitT(t, r.Dir, "show", tree+":new.md"); got != "xy" {
		t.Fatalf("new.txt and new.md in the snapshot: %q", got)
	}
	// The plant works for git run as the person runs it: the test can fail.
	exec.Command("git", "-C", r.Dir, "status").Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the planted fsmonitor does not run even for plain git: the test proves nothing")
	}
}

// TestSnapshotLeavesOutTrackedFlowFiles: files under .flow that the person
// committed or staged (the docs people commit) are not the code either.
func TestSnapshotLeavesOutTrackedFlowFiles(t *testing.T) {
	r := newRepo(t)
	os.MkdirAll(filepath.Join(r.Dir, ".flow", "sessions"), 0o755)
	write(t, r.Dir, ".flow/sessions/doc.md", "committed doc\n")
	gitT(t, r.Dir, "add", ".flow/sessions/doc.md")
	gitT(t, r.Dir, "commit", "-q", "-m", "docs")
	write(t, r.Dir, ".flow/staged.md", "staged\n")
	gitT(t, r.Dir, "add", ".flow/staged.md")
	tree, err := r.Snapshot(r.Dir, ".flow")
	if err != nil {
		t.Fatal(err)
	}
	if files := gitT(t, r.Dir, "ls-tree", "-r", "--name-only", tree); strings.Contains(files, ".flow") {
		t.Fatalf("tracked .flow files in the snapshot:\n%s", files)
	}
	if mayHold([]byte("DIRC\x00\x00\x00\x02...a.txt..."), []string{".flow"}) != nil {
		t.Error("an index without .flow/ paths was taken to hold some")
	}
	if got := mayHold([]byte("DIRC\x00\x00\x00\x04...a.txt..."), []string{".flow"}); len(got) != 1 {
		t.Error("a version 4 index (compressed paths) was trusted")
	}
}
