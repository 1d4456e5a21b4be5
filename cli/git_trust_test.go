package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
)

// The attacks of an agent that can write only in its worktree (and the
// repository's git directory, which committing needs) against flowdeck's
// own git commands, run as the person runs them. Each test fails on a
// flowdeck that trusts a worktree's .git file, the repository's config or
// the database's git fields.

const twoFeatures = `{"summary":"p","max_parallel":2,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"}]}`

// An agent rewrites its worktree's .git file to name the person's own
// repository, or another repository outside the project. flowdeck's commit
// of what the agent left (run --feature, completion) refuses to run there:
// the person's branch and index, and the other repository's branch, stay
// as they were.
func TestRewrittenGitFileCannotRedirectFlowdecksCommits(t *testing.T) {
	for _, target := range []string{"main", "outside"} {
		t.Run(target, func(t *testing.T) {
			p := newGitProject(t, twoFeatures)
			wa := p.claim("a", "w1")
			other := filepath.Join(t.TempDir(), "other")
			p.git(p.dir, "init", "-q", "-b", "main", other)
			p.write(other, "o.txt", "o\n")
			p.git(other, "add", "o.txt")
			p.git(other, "-c", "user.name=o", "-c", "user.email=o@example.com", "commit", "-q", "-m", "other")
			otherHead := p.git(other, "rev-parse", "HEAD")

			// The person has work staged in their checkout.
			p.write(p.dir, "staged.txt", "mine\n")
			p.git(p.dir, "add", "staged.txt")
			head := p.git(p.dir, "rev-parse", "HEAD")

			// The agent's move.
			p.write(wa, "agent.txt", "agent\n")
			gitdir := filepath.Join(p.dir, ".git")
			if target == "outside" {
				gitdir = filepath.Join(other, ".git")
			}
			p.write(wa, ".git", "gitdir: "+gitdir+"\n")

			out, errs, code := flowdeck(t, p.dir, "--json", "run", "--feature", "a", "--", "true")
			if code == 0 || !strings.Contains(out+errs, model.CodeWorktreeChanged) {
				t.Fatalf("run --feature in a redirected worktree: exit %d\n%s\n%s", code, out, errs)
			}
			// Nor is the change reviewed or completed: it cannot be told.
			p.must("flow", "validate", "a", "--status", "passed", "--scope", "targeted", "--command", "true")
			out, errs, code = flowdeck(t, p.dir, "--json", "flow", "review", "a", "--decision", "approved")
			if code == 0 || !strings.Contains(out+errs, model.CodeWorktreeChanged) {
				t.Fatalf("review of a redirected worktree: exit %d\n%s\n%s", code, out, errs)
			}
			out, errs, code = flowdeck(t, p.dir, "--json", "flow", "run", "complete", "a", "--outcome", "completed")
			if code == 0 || !strings.Contains(out+errs, model.CodeWorktreeChanged) {
				t.Fatalf("completion of a redirected worktree: exit %d\n%s\n%s", code, out, errs)
			}
			if got := p.git(p.dir, "rev-parse", "HEAD"); got != head {
				t.Fatalf("the person's branch moved: %s -> %s", head, got)
			}
			if staged := p.git(p.dir, "diff", "--cached", "--name-only"); staged != "staged.txt" {
				t.Fatalf("the person's index changed: staged %q", staged)
			}
			if got := p.git(other, "rev-parse", "HEAD"); got != otherHead {
				t.Fatalf("the other repository's branch moved: %s -> %s", otherHead, got)
			}
		})
	}
}

// marker is a script that records that it ran (and what as) in a file,
// for planting as a hook, fsmonitor, filter, merge driver or gpg program.
func plantScript(t *testing.T) (script, marker string) {
	t.Helper()
	dir := t.TempDir()
	marker = filepath.Join(dir, "ran")
	script = filepath.Join(dir, "planted")
	body := "#!/bin/sh\necho \"$0 $*\" >> '" + marker + "'\ncat >/dev/null 2>&1 </dev/null\nexit 0\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

// An agent plants, from its worktree, every kind of repository-controlled
// program git runs: hooks (through core.hooksPath and in the hooks
// directory), an fsmonitor, a required filter on every path, gpg signing,
// a per-worktree config that moves the work tree. None of it runs during
// the person's commands: run --feature, completion, land and reset
// session. Plain git, run the same way, does run it: the plant is real.
func TestPlantedRepositoryCodeNeverRunsInFlowdecksGit(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":3,"features":[{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C"}]}`)
	wa := p.claim("a", "w1")
	wb := p.claim("b", "w2")
	script, marker := plantScript(t)

	// The agents' work: a's committed, b's left uncommitted.
	p.write(wa, "fa.txt", "a\n")
	p.git(wa, "add", "fa.txt")
	p.git(wa, "commit", "-q", "-m", "a's work")
	p.write(wb, "fb.txt", "b\n")

	// The plant, from a's worktree: the config is the repository's.
	hooks := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hooks, 0o755)
	common := p.git(wa, "rev-parse", "--path-format=absolute", "--git-common-dir")
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction",
		"post-merge", "pre-merge-commit", "post-checkout", "post-index-change", "pre-auto-gc", "post-rewrite"} {
		for _, d := range []string{hooks, filepath.Join(common, "hooks")} {
			os.MkdirAll(d, 0o755)
			if err := os.Symlink(script, filepath.Join(d, h)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, kv := range [][2]string{
		{"core.hooksPath", hooks},
		{"core.fsmonitor", script},
		{"filter.x.clean", script},
		{"filter.x.smudge", script},
		{"filter.x.required", "true"},
		{"commit.gpgSign", "true"},
		{"gpg.program", script},
		{"merge.verifySignatures", "true"},
		{"diff.external", script},
		{"diff.x.textconv", script},
		{"diff.x.command", script},
		{"extensions.worktreeConfig", "true"},
	} {
		p.git(wa, "config", kv[0], kv[1])
	}
	p.git(wa, "config", "--worktree", "core.worktree", p.dir)
	os.MkdirAll(filepath.Join(common, "info"), 0o755)
	p.write(filepath.Join(common, "info"), "attributes", "* filter=x diff=x\n")
	os.Remove(marker)

	// A feature claimed now gets its worktree checked out: smudge
	// filters, post-checkout hooks.
	p.claim("c", "w3")
	p.must("diff", "a")
	p.must("diff", "--session")

	// The person's ordinary commands.
	p.must("run", "--feature", "a", "--", "true")
	p.must("flow", "review", "a", "--decision", "approved")
	p.action(0, "flow", "run", "complete", "a", "--outcome", "completed")
	p.must("run", "--feature", "b", "--", "true")
	p.must("flow", "review", "b", "--decision", "approved")
	p.action(0, "flow", "run", "complete", "b", "--outcome", "completed")
	p.must("run", "--feature", "c", "--scope", "broad", "--", "true")
	p.must("flow", "review", "c", "--decision", "approved")
	p.must("flow", "review", "--final", "--decision", "approved")
	p.action(0, "flow", "run", "complete", "c", "--outcome", "completed")
	// The person committed meanwhile: land is a real merge.
	if err := os.WriteFile(filepath.Join(p.dir, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := exec.Command("git", "-C", p.dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
		"-c", "commit.gpgSign=false", "-c", "filter.x.required=false", "-c", "filter.x.clean=", "add", "mine.txt")
	if out, err := plain.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	plain = exec.Command("git", "-C", p.dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
		"-c", "commit.gpgSign=false", "commit", "-q", "-m", "the person's commit")
	if out, err := plain.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	os.Remove(marker)
	p.must("flow", "land")
	p.must("flow", "reset", "session")
	if data, err := os.ReadFile(marker); err == nil {
		t.Fatalf("planted code ran inside flowdeck's git:\n%s", data)
	}
	if got := p.git(p.dir, "log", "-1", "--format=%s"); !strings.Contains(got, "land") && !strings.Contains(got, "Merge") && !strings.Contains(got, "flowdeck") {
		t.Fatalf("land did not merge: HEAD is %q", got)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "fb.txt")); err != nil {
		t.Fatalf("b's work did not land: %v", err)
	}

	// The plant works for git as the person runs it: the test can fail.
	exec.Command("git", "-C", p.dir, "status").Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the planted fsmonitor does not run even for plain git: the test proves nothing")
	}
}

// A merge driver the agent configured, named by an attribute of the path
// both features change, never runs in flowdeck's merge: the path is a
// conflict instead, refused with the path named.
func TestPlantedMergeDriverNeverRuns(t *testing.T) {
	p := newGitProject(t, twoFeatures)
	wa, wb := p.claim("a", "w1"), p.claim("b", "w2")
	script, marker := plantScript(t)
	p.write(wa, "a.txt", "ONE\ntwo\nthree\n")
	p.write(wb, "a.txt", "one\ntwo\nTHREE\n")
	p.verify("a", "targeted", "true")
	p.action(0, "flow", "run", "complete", "a", "--outcome", "completed")
	p.verify("b", "broad", "true")
	p.must("flow", "review", "--final", "--decision", "approved")

	p.git(wb, "config", "merge.evil.driver", script+" %O %A %B")
	common := p.git(wb, "rev-parse", "--path-format=absolute", "--git-common-dir")
	os.MkdirAll(filepath.Join(common, "info"), 0o755)
	p.write(filepath.Join(common, "info"), "attributes", "a.txt merge=evil\n")
	os.Remove(marker)

	out, errs, code := flowdeck(t, p.dir, "--json", "flow", "run", "complete", "b", "--outcome", "completed")
	if code == 0 || !strings.Contains(out, model.CodeMergeConflict) || !strings.Contains(out, "a.txt") {
		t.Fatalf("completion over a planted merge driver: exit %d\n%s\n%s", code, out, errs)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the planted merge driver ran:\n%s", data)
	}
	// Plain git runs it: the test can fail.
	integ := p.git(p.dir, "rev-parse", p.integ)
	exec.Command("git", "-C", p.dir, "merge-tree", "--write-tree", integ, p.integ+".b").Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the planted merge driver does not run even for plain git: the test proves nothing")
	}
}

// The database's git fields are rewritten (by hand, or by an agent that can
// write .flow/): a feature's worktree names the person's second checkout
// outside the project, and its branch that checkout's branch. flow reset
// session neither commits there nor removes it.
func TestTamperedGitFieldsAreNotFollowed(t *testing.T) {
	p := newGitProject(t, twoFeatures)
	p.claim("a", "w1")
	hotfix := filepath.Join(t.TempDir(), "hotfix")
	p.git(p.dir, "worktree", "add", "-q", "-b", "hotfix", hotfix)
	p.write(hotfix, "unsaved.txt", "the person's unsaved work\n")
	p.write(hotfix, "ignored.log", "ignored\n")
	hotfixHead := p.git(hotfix, "rev-parse", "HEAD")

	rel, err := filepath.Rel(p.dir, hotfix)
	if err != nil {
		t.Fatal(err)
	}
	tamper(t, filepath.Join(p.dir, db.DBFile), func(s map[string]any) {
		plan := s["plan"].(map[string]any)
		for _, f := range plan["features"].([]any) {
			f := f.(map[string]any)
			if f["id"] == "a" {
				f["git"] = map[string]any{"branch": "hotfix", "worktree": filepath.ToSlash(rel)}
			}
		}
	})
	out, errs, _ := flowdeck(t, p.dir, "--json", "flow", "reset", "session")
	for _, f := range []string{"unsaved.txt", "ignored.log"} {
		if _, err := os.Stat(filepath.Join(hotfix, f)); err != nil {
			t.Fatalf("the person's checkout lost %s: %v", f, err)
		}
	}
	if got := p.git(hotfix, "rev-parse", "HEAD"); got != hotfixHead {
		t.Fatalf("flowdeck committed on hotfix: %s -> %s", hotfixHead, got)
	}
	if !strings.Contains(out+errs, model.CodeGitRecordMismatch) {
		t.Fatalf("reset session over tampered git fields did not say so:\n%s\n%s", out, errs)
	}
}

// tamper rewrites the active session's stored state in the bbolt file at
// path, as an editor of the file would.
func tamper(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("sessions"))
		id := tx.Bucket([]byte("meta")).Get([]byte("active"))
		var s map[string]any
		if err := json.Unmarshal(b.Get(id), &s); err != nil {
			return err
		}
		edit(s)
		data, err := json.Marshal(s)
		if err != nil {
			return err
		}
		return b.Put(id, data)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A feature whose id is "lock" gets a worktree and a branch git allows,
// and completes like any other.
func TestFeatureNamedLockGetsAWorktree(t *testing.T) {
	p := newGitProject(t, `{"summary":"p","max_parallel":2,"features":[{"id":"lock","title":"L"},{"id":"b","title":"B"}]}`)
	res := p.action(0, "flow", "run", "start", "lock", "--agent", "w1")
	if res.Git == nil || res.Git.Warning != "" || !strings.HasSuffix(res.Git.Branch, ".lock_") {
		t.Fatalf("claim of lock: %+v", res.Git)
	}
	p.write(res.Git.Worktree, "l.txt", "l\n")
	p.verify("lock", "targeted", "test", "-f", "l.txt")
	res = p.action(0, "flow", "run", "complete", "lock", "--outcome", "completed")
	if res.Git == nil || res.Git.Merge == nil {
		t.Fatalf("completion of lock: %+v", res.Git)
	}
}
