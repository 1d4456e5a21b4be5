// Package project is one handle on an opened flowdeck project: its root,
// its config (read once), the actor, its store, and the patterns and
// redactor every run of it uses (loaded on first use and kept). The command
// line, the MCP server and the cockpit take a *Project and go through it;
// none of them reaches the database package itself.
//
// ops stays a package of its own, between project and flows: it builds the
// result objects (the JSON of --json and of the MCP tools) from a store.
// project is the only caller that hands ops a store.
package project

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/internal/contain"
	"github.com/flowdeck/flowdeck/internal/rootdir"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/patterns"
)

// Options say how to open a project.
type Options struct {
	// Actor is who acts, recorded on every event; "" means the config's
	// actor, else "human".
	Actor string
	// Warn receives the config's and the pattern files' problems, once
	// each (nil: dropped; ConfigErrors and PatternErrors keep them).
	Warn io.Writer
	// Now is the clock stamped on actions; nil means time.Now.
	Now func() time.Time
	// AsRoot takes dir as the root itself (--dir) instead of searching
	// upward from it for .git or .flow.
	AsRoot bool
	// Config, when set, is used instead of reading the config file (tests,
	// and callers that loaded it already).
	Config *config.Config
	// Store tunes the database handle (tests: NoSync).
	Store db.Options
	// OneShot is a process that does one thing and exits (a CLI command):
	// the database's schema check rides on that thing's own open of the
	// file instead of a second one (db.Options.DeferCheck). Create still
	// checks before a long-lived front-end starts.
	OneShot bool
	// Faults are deliberate failures for tests of the real binary (the
	// binary sets them from its environment; see ops.Faults).
	Faults ops.Faults
	// Agent is $FLOWDECK_AGENT as the front-end's edge read it: the name
	// of an agent flowdeck launched, which is refused the person's
	// decisions (model.CheckPersonDecision).
	Agent string
}

// Project is an opened project. It is safe for concurrent use: what loads
// lazily loads once.
type Project struct {
	*shared
	actor string
	via   string // where the calls come from (From)
	mcp   bool   // calls come over the MCP server (OverMCP)
}

// shared is what every view of a project (As) shares.
type shared struct {
	root string
	opts Options

	cfgOnce sync.Once
	cfg     config.Config
	cfgErrs []error

	stMu sync.Mutex
	st   *db.Store

	patOnce sync.Once
	pats    *patterns.Set
	patErrs []error

	redOnce sync.Once
	red     *patterns.Redactor
	redErr  error
}

// Open opens the project that dir is in: the nearest directory upward with
// .git or .flow (dir itself when there is none, or with opts.AsRoot); ""
// is the working directory. It creates nothing and reads no config: the
// config is read on first use, the database is opened (and created) by the
// first method that writes, and a project without one reads as having no
// session.
func Open(dir string, opts Options) (*Project, error) {
	root, err := rootdir.Resolve(dir, opts.AsRoot)
	if errors.Is(err, rootdir.ErrNotDir) {
		return nil, &NotDirError{Dir: dir}
	} else if err != nil {
		return nil, err
	}
	return &Project{shared: &shared{root: root, opts: opts}, actor: opts.Actor}, nil
}

// NotDirError is a --dir that is not a directory.
type NotDirError struct{ Dir string }

func (e *NotDirError) Error() string { return fmt.Sprintf("--dir %s is not a directory", e.Dir) }

// As is the same project acting as actor (an MCP tool call's agent_id);
// "" is p itself.
func (p *Project) As(actor string) *Project {
	if actor == "" || actor == p.actor {
		return p
	}
	return &Project{shared: p.shared, actor: actor, via: p.via, mcp: p.mcp}
}

// From is the same project for calls that come from via (model.Context.Via,
// e.g. "fleet@laptop"), recorded on their events and answers. via must
// pass model.CheckVia: the store refuses to record one that does not.
func (p *Project) From(via string) *Project {
	return &Project{shared: p.shared, actor: p.actor, via: via, mcp: p.mcp}
}

// OverMCP is the same project for the MCP server: its callers are agents,
// which the project's person_decisions setting may refuse the person's
// decisions.
func (p *Project) OverMCP() *Project {
	return &Project{shared: p.shared, actor: p.actor, via: p.via, mcp: true}
}

// Caller is who acts on p, for the person's decisions: the launched agent
// ($FLOWDECK_AGENT), the channel, and the project's policy.
func (p *Project) Caller() model.Caller {
	return model.Caller{Agent: p.opts.Agent, MCP: p.mcp, Policy: p.Config().Session.PersonDecisions}
}

// personDecision refuses p's caller the person's decision what (model's
// rule); nil when what is "" or the caller may take it.
func (p *Project) personDecision(what string) *model.Error {
	me, _ := model.AsError(model.CheckPersonDecision(what, p.Caller()))
	return me
}

// by is who acts on p, when and from where: the context of an action.
func (p *Project) by() model.Context {
	return model.Context{Now: p.Now(), Actor: p.Actor(), Via: p.via}
}

// Root is the directory that holds .flow.
func (p *Project) Root() string { return p.root }

// FlowDir is the project's .flow directory.
func (p *Project) FlowDir() string { return filepath.Join(p.root, ".flow") }

// Now is the project's clock.
func (p *Project) Now() time.Time {
	if p.opts.Now != nil {
		return p.opts.Now()
	}
	return time.Now()
}

// Actor is who acts: the one given to Open or As, else the config's actor,
// else "human".
func (p *Project) Actor() string {
	if p.actor != "" {
		return p.actor
	}
	if a := p.Config().Actor; a != "" {
		return a
	}
	return "human"
}

// Config is the config: opts.Config, else the user's ($FLOWDECK_CONFIG,
// else config.DefaultPath()) with the project's .flow/config.toml merged
// over it (config.Merge), read once on first use. Problems go to opts.Warn
// and are kept (ConfigErrors); the defaults stand in for what is broken.
func (p *Project) Config() config.Config {
	p.cfgOnce.Do(func() {
		if p.opts.Config != nil {
			p.cfg = *p.opts.Config
			return
		}
		path := os.Getenv("FLOWDECK_CONFIG")
		if path == "" {
			path = config.DefaultPath()
		}
		p.cfg, p.cfgErrs = config.Load(path)
		if data, err := p.projectConfig(); err != nil {
			p.cfgErrs = append(p.cfgErrs, fmt.Errorf("%v; the project's configuration is not used", err))
		} else if data != nil {
			var errs []error
			p.cfg, errs = config.Merge(p.cfg, filepath.Join(p.root, filepath.FromSlash(config.ProjectFile)), data)
			p.cfgErrs = append(p.cfgErrs, errs...)
		}
		if a := p.cfg.Actor; a != "" {
			// The config's actor is recorded like --actor: held to the same rule.
			if err := model.CheckAgentName("actor", a); err != nil {
				p.cfgErrs = append(p.cfgErrs, fmt.Errorf("%s: %v; %q is used instead", path, err, "human"))
				p.cfg.Actor = ""
			}
		}
		for name := range p.cfg.Agents {
			// An agent's table name is its processes' $FLOWDECK_AGENT and the
			// actor of its runs and events: held to the same rule, and a
			// project's file is anyone's who writes the repository.
			if err := model.CheckAgentName("agents table", name); err != nil {
				p.cfgErrs = append(p.cfgErrs, fmt.Errorf("%v; the role falls back to the person", err))
				delete(p.cfg.Agents, name)
			}
		}
		for _, err := range p.cfgErrs {
			p.warnf("flowdeck: config: %v\n", err)
		}
	})
	return p.cfg
}

// maxProjectConfig bounds .flow/config.toml: anyone who can write .flow
// (an agent) can make it as large as they like.
const maxProjectConfig = 1 << 20

// projectConfig reads .flow/config.toml beneath the root, like every file
// under .flow: a symlink, a FIFO or a path leading out of the project is
// refused, never followed. nil when there is none.
func (p *Project) projectConfig() ([]byte, error) {
	r, err := contain.Open(p.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := contain.OpenRegular(r, filepath.FromSlash(config.ProjectFile), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProjectConfig+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if len(data) > maxProjectConfig {
		return nil, fmt.Errorf("%s: larger than %d bytes", filepath.Join(p.root, config.ProjectFile), maxProjectConfig)
	}
	return data, nil
}

// ConfigErrors are the config file's problems (after Config).
func (p *Project) ConfigErrors() []error {
	p.Config()
	return p.cfgErrs
}

func (p *Project) warnf(format string, args ...any) {
	if p.opts.Warn != nil {
		fmt.Fprintf(p.opts.Warn, format, args...)
	}
}

// dbPath is the database file.
func (p *Project) dbPath() string { return filepath.Join(p.root, db.DBFile) }

// HasDatabase reports whether the project has a database yet.
func (p *Project) HasDatabase() bool {
	_, err := os.Lstat(p.dbPath())
	return !errors.Is(err, fs.ErrNotExist)
}

// Create opens the database, creating it when needed. The cockpit and the
// MCP server call it first; every writing method does it itself.
func (p *Project) Create() error {
	st, err := p.store()
	if err != nil {
		return err
	}
	// A long-lived front-end refuses a bad file before it starts, even
	// when the one-shot CLI deferred the check to the first transaction.
	return st.Check()
}

// store opens the database once, creating it when needed.
func (p *Project) store() (*db.Store, error) {
	p.stMu.Lock()
	defer p.stMu.Unlock()
	if p.st != nil {
		return p.st, nil
	}
	o := p.opts.Store
	o.DeferCheck = o.DeferCheck || p.opts.OneShot
	if o.Digest == nil {
		o.Digest = ops.Digest // what the lean binary prints for flow status
	}
	st, err := db.Open(p.dbPath(), o)
	if err != nil {
		return nil, err
	}
	p.st = st
	return st, nil
}

// reader is the database for a method that only reads: nil when the
// project has none (nothing to read), and then nothing is created.
func (p *Project) reader() (*db.Store, error) {
	p.stMu.Lock()
	opened := p.st != nil
	p.stMu.Unlock()
	if !opened && !p.HasDatabase() {
		return nil, nil
	}
	return p.store()
}

// Patterns are the patterns that classify the project's output: its own
// (.flow/patterns), then the user's ($XDG_CONFIG_HOME/flowdeck/patterns),
// then the built-ins, loaded once. Broken files are reported to opts.Warn,
// kept in PatternErrors, and skipped.
func (p *Project) Patterns() *patterns.Set {
	p.patOnce.Do(func() {
		dirs := []string{filepath.Join(p.FlowDir(), "patterns")}
		if cfg, err := os.UserConfigDir(); err == nil {
			dirs = append(dirs, filepath.Join(cfg, "flowdeck", "patterns"))
		}
		p.pats, p.patErrs = patterns.Load(dirs...)
		for _, err := range p.patErrs {
			p.warnf("flowdeck: pattern skipped: %v\n", err)
		}
	})
	return p.pats
}

// PatternErrors are the pattern files skipped as broken (after Patterns).
func (p *Project) PatternErrors() []error {
	p.Patterns()
	return p.patErrs
}

// Redactor is the config's redaction rules over the built-ins, built once.
// Broken rules are an error naming the config file and line: runs fail
// closed on it.
func (p *Project) Redactor() (*patterns.Redactor, error) {
	p.redOnce.Do(func() {
		run := p.Config().Run
		if run.RedactErr != nil {
			p.redErr = fmt.Errorf("config %v", run.RedactErr)
			return
		}
		p.red, p.redErr = patterns.NewRedactor(run.Redact)
		if p.redErr != nil {
			p.redErr = fmt.Errorf("config run.redact: %w", p.redErr)
		}
	})
	return p.red, p.redErr
}

// actionRedactor is the redactor for the text of an action: with broken
// rules, the built-ins still apply (an action is not refused for them).
func (p *Project) actionRedactor() *patterns.Redactor {
	if r, err := p.Redactor(); err == nil {
		return r
	}
	r, _ := patterns.NewRedactor(nil)
	return r
}

// FromStore is the project whose database st is already open (tests that
// prepared a store); opts.Store is not used.
func FromStore(st *db.Store, opts Options) *Project {
	return &Project{shared: &shared{root: filepath.Dir(st.Dir()), opts: opts, st: st}, actor: opts.Actor}
}
