package flows

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/internal/gitwork"
	"github.com/flowdeck/flowdeck/internal/sandbox"
	"github.com/flowdeck/flowdeck/model"
)

// sandboxed returns how to wrap run's agent commands for an agent with
// sandbox = true: bwrap with the project read-only and the agent's
// worktree, with what a commit there writes, writable (README: Isolation,
// "An agent in a sandbox"). It refuses (the agent does not start) when
// bwrap is missing or cannot make its namespaces here, and when the
// worktree is no longer the one flowdeck made.
func (e *Engine) sandboxed(ctx context.Context, run *model.FlowRun, a config.Agent, env []string) (func([]string) []string, error) {
	bwrap, err := sandbox.Usable(ctx, envValue(env, "PATH"))
	if err != nil {
		return nil, err
	}
	spec, err := e.sandboxSpec(run, a, envValue(env, "HOME"))
	if err != nil {
		return nil, err
	}
	return func(argv []string) []string { return spec.Argv(bwrap, argv) }, nil
}

// sandboxSpec is what run's agent sees. In a feature's worktree it writes
// the worktree and, of the repository's git directory, only what a commit
// on its branch writes: objects, the refs and reflogs under
// refs/heads/flowdeck/, and the worktree's own git directory (but not the
// files in it that say which repository it belongs to). The config, hooks,
// info/, packed-refs, the person's branches and the project's .flow
// (flowdeck.db included) stay read-only. Without a worktree the agent works
// in the person's checkout: it may write files there, but not .flow or
// .git (it cannot commit).
func (e *Engine) sandboxSpec(run *model.FlowRun, a config.Agent, home string) (sandbox.Spec, error) {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dir := e.agentDir(run)
	spec := sandbox.Spec{Home: home, Dir: dir, Read: []string{e.Root}}
	if e.Bin != "" {
		spec.Read = append(spec.Read, e.Bin) // flowdeck itself, for the agent's CLI and MCP server
	}
	if len(a.Command) > 0 && filepath.IsAbs(a.Command[0]) {
		spec.Read = append(spec.Read, a.Command[0])
	}
	var repo *gitwork.Repo
	if gitwork.IsRepo(e.Root) {
		var err error
		if repo, err = gitwork.Open(e.Root); err != nil {
			return spec, err
		}
		spec.Read = append(spec.Read, repo.Dir, repo.CommonDir())
	}
	rel, err := filepath.Rel(e.Root, dir)
	if err != nil {
		return spec, err
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	inWorktree := len(parts) >= 3 && parts[0]+"/"+parts[1] == model.WorktreesDir
	switch {
	case inWorktree && repo != nil:
		s, err := e.Store.Active()
		if err != nil {
			return spec, err
		}
		if s == nil {
			return spec, fmt.Errorf("no active session owns the worktree %s", dir)
		}
		feature := parts[2]
		wtDir := filepath.Join(e.Root, filepath.FromSlash(model.WorktreePath(feature)))
		wt, err := repo.Linked(wtDir, model.FeatureBranch(s.ID, feature))
		if err != nil {
			return spec, err
		}
		if wt == nil {
			return spec, fmt.Errorf("%s is not a git worktree of feature %s", wtDir, feature)
		}
		common := repo.CommonDir()
		refs, logs := filepath.Join(common, "refs", "heads", "flowdeck"), filepath.Join(common, "logs", "refs", "heads", "flowdeck")
		// Binds need their directories; git makes these on a first commit
		// anyway, and a branch packed by gc has no loose directory.
		for _, d := range []string{refs, logs} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return spec, err
			}
		}
		spec.Write = append(spec.Write, wtDir, wt.GitDir(), filepath.Join(common, "objects"), refs, logs,
			filepath.Join(common, "reftable")) // a reftable repository keeps every ref there: all writable
		spec.ReadOver = append(spec.ReadOver, filepath.Join(wtDir, ".git"),
			filepath.Join(wt.GitDir(), "commondir"), filepath.Join(wt.GitDir(), "gitdir"))
	case inWorktree:
		spec.Write = append(spec.Write, dir)
	default:
		spec.Write = append(spec.Write, dir)
		spec.ReadOver = append(spec.ReadOver, filepath.Join(e.Root, ".flow"))
		if repo != nil {
			spec.ReadOver = append(spec.ReadOver, filepath.Join(repo.Dir, ".git"), repo.CommonDir())
		}
	}
	read, write, over := sandbox.Clients(home)
	spec.Read = append(spec.Read, read...)
	spec.Write = append(spec.Write, write...)
	spec.ReadOver = append(spec.ReadOver, over...)
	extraRead, err := e.sandboxPaths(a.SandboxPaths.Read, home)
	if err != nil {
		return spec, err
	}
	extraWrite, err := e.sandboxPaths(a.SandboxPaths.Write, home)
	if err != nil {
		return spec, err
	}
	spec.Read = append(spec.Read, extraRead...)
	spec.Write = append(spec.Write, extraWrite...)
	return spec, nil
}

// sandboxPaths makes the configured paths absolute: ~/ in home, relative
// ones beneath the project root. A path inside the project is resolved
// beneath it (contain.ResolveLinks), as every path flowdeck takes there:
// the project is where agents write, and a symlink one planted at a
// configured path would otherwise bind where it leads (the person's
// ~/.ssh, writable) into the next sandbox. Such a link refuses the
// sandbox.
func (e *Engine) sandboxPaths(paths []string, home string) ([]string, error) {
	out := make([]string, 0, len(paths))
	var r *os.Root
	defer func() {
		if r != nil {
			r.Close()
		}
	}()
	for _, p := range paths {
		switch {
		case p == "~":
			p = home
		case strings.HasPrefix(p, "~/"):
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p):
			p = filepath.Join(e.Root, p)
		}
		p = filepath.Clean(p)
		if rel, err := filepath.Rel(e.Root, p); err == nil && filepath.IsLocal(rel) {
			if r == nil {
				if r, err = contain.Open(e.Root); err != nil {
					return nil, err
				}
			}
			if rel, err = contain.ResolveLinks(r, rel); err != nil {
				return nil, fmt.Errorf("sandbox_paths %q: %w", p, err)
			}
			p = filepath.Join(e.Root, rel)
		}
		out = append(out, p)
	}
	return out, nil
}

// envValue is k's value in env ("" when unset).
func envValue(env []string, k string) string {
	v, _ := envLookup(env, k)
	return v
}

// envLookup is k's value in env as a process started with env sees it:
// the last one (exec.Cmd keeps the last of duplicates).
func envLookup(env []string, k string) (v string, found bool) {
	for _, kv := range env {
		if key, val, ok := strings.Cut(kv, "="); ok && key == k {
			v, found = val, true
		}
	}
	return v, found
}
