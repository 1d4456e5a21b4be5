// Package config reads flowdeck's settings from
// $XDG_CONFIG_HOME/flowdeck/config.toml: the cockpit's keys, bell and theme,
// the agents, and the defaults of every run (limits, timeout, retention,
// redaction); a project's .flow/config.toml is merged over it (Merge). A
// broken file never stops flowdeck: Load returns defaults plus errors that
// name the file and line. The one exception fails closed: a redaction rule
// that is not a valid regex, or that matches the empty string, stops every
// run (Run.RedactErr) rather than letting secrets through unredacted.
package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/flowdeck/flowdeck/patterns"
)

// Bell modes: how the cockpit tells the person that something waits.
const (
	BellOff    = "off"
	BellBell   = "bell"   // BEL
	BellOSC777 = "osc777" // desktop notification (urxvt, foot, kitty, …)
	BellOSC99  = "osc99"  // desktop notification (kitty)
	BellOSC9   = "osc9"   // desktop notification (iTerm2, WezTerm, Windows Terminal, ConEmu)
)

// Config is the cockpit's settings.
type Config struct {
	// Path is the user's file the settings came from ("" when there was
	// none).
	Path string `toml:"-"`
	// ProjectPath is the project's file merged over it (Merge), "" when
	// there was none.
	ProjectPath string `toml:"-"`
	// Keys rebinds actions: action name -> keys (see ui/keys).
	Keys map[string][]string `toml:"keys"`
	// Bell is off, bell, osc777, osc99 or osc9.
	Bell string `toml:"bell"`
	// Theme is auto (ask the terminal), dark or light.
	Theme string `toml:"theme"`
	// Actor is recorded on the cockpit's actions; empty means human.
	Actor string `toml:"actor"`
	// Mouse captures the mouse at start (the toggle key flips it).
	Mouse *bool `toml:"mouse"`
	// Run holds the defaults of flowdeck run.
	Run Run `toml:"run"`
	// Agents are the commands that answer literate-flow steps, by role.
	Agents map[string]Agent `toml:"agents"`
	// Session holds the defaults of a plan entering a session.
	Session Session `toml:"session"`

	raw        []byte // the file's text, to point later messages at a line
	projectRaw []byte // the project file's text
}

// Run is the [run] table: defaults for every command flowdeck runs. Flags
// override them.
//
//	[run]
//	timeout = "30m"        # kill a run after this long ("" = never)
//	memory = "4G"          # memory limit
//	pids = 512             # process limit
//	cpu = 2.0              # CPU limit in cores
//	retain = "2G"          # output kept per project ("0" = unbounded)
//	redact = ['(?i)internal-token-[a-z0-9]+']   # extra secrets (RE2)
//	stall = "10m"          # end a run waiting for input this long ("0" = never)
//	[run.env]              # added to every run's environment, last
//	PAGER = "cat"
type Run struct {
	Timeout string            `toml:"timeout"`
	Memory  string            `toml:"memory"`
	Pids    int               `toml:"pids"`
	CPU     float64           `toml:"cpu"`
	Retain  string            `toml:"retain"`
	Redact  []string          `toml:"redact"`
	Stall   string            `toml:"stall"`
	Env     map[string]string `toml:"env"`
	// RedactErr names the file, line and rule when a redact entry is
	// broken; every run must then refuse to start.
	RedactErr error `toml:"-"`
}

// Session is the [session] table: what a plan that does not say gets when
// it enters a session (the plan's own value wins).
//
//	[session]
//	max_parallel = 3       # features active at once (1..64; default 1)
//	person_decisions = "cockpit"   # see PersonDecisions (config/decisions.go)
type Session struct {
	MaxParallel int `toml:"max_parallel"`
	// PersonDecisions says who may relay the person's decisions.
	PersonDecisions string `toml:"person_decisions"`
}

// MaxParallelLimit bounds session.max_parallel as model.MaxParallelLimit
// bounds a plan's (config imports no domain package).
const MaxParallelLimit = 64

// Default is the configuration without a file.
func Default() Config { return Config{Bell: BellBell, Theme: "auto"} }

// MouseOn reports whether mouse capture starts enabled (default yes).
func (c Config) MouseOn() bool { return c.Mouse == nil || *c.Mouse }

// DefaultPath is $XDG_CONFIG_HOME/flowdeck/config.toml, or
// ~/.config/flowdeck/config.toml.
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "flowdeck", "config.toml")
}

// Load reads path. A missing file is not an error. On a syntax error the
// defaults are returned with the error; on bad values the good ones are kept.
func Load(path string) (Config, []error) {
	c := Default()
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, []error{fmt.Errorf("%s: %w", path, err)}
	}
	c.Path = path
	var parsed Config
	md, err := toml.Decode(string(data), &parsed)
	if err != nil {
		return c, []error{parseError(path, err)}
	}
	var errs []error
	for _, k := range md.Undecoded() {
		errs = append(errs, fmt.Errorf("%s:%d: unknown setting %q", path, LineOf(data, k[len(k)-1]), k.String()))
	}
	parsed.Path, parsed.raw = path, data
	errs = append(errs, checkLook(&parsed, c, path, data)...)
	errs = append(errs, checkRun(&parsed, path, data)...)
	errs = append(errs, checkSession(&parsed, path, data)...)
	errs = append(errs, checkPersonDecisions(&parsed, path, data)...)
	errs = append(errs, checkAgents(&parsed, path, data)...)
	return parsed, errs
}

// checkLook puts back def's bell and theme where c's are unset or unknown,
// and says why for the unknown ones.
func checkLook(c *Config, def Config, path string, data []byte) []error {
	var errs []error
	if c.Bell == "" {
		c.Bell = def.Bell
	}
	switch c.Bell {
	case BellOff, BellBell, BellOSC777, BellOSC99, BellOSC9:
	default:
		errs = append(errs, fmt.Errorf("%s:%d: bell = %q: use off, bell, osc777, osc99 or osc9", path, LineOf(data, "bell"), c.Bell))
		c.Bell = def.Bell
	}
	if c.Theme == "" {
		c.Theme = def.Theme
	}
	switch c.Theme {
	case "auto", "dark", "light":
	default:
		errs = append(errs, fmt.Errorf("%s:%d: theme = %q: use auto, dark or light", path, LineOf(data, "theme"), c.Theme))
		c.Theme = def.Theme
	}
	return errs
}

// checkRun drops a [run] value that cannot work and says why.
func checkRun(c *Config, path string, data []byte) []error {
	var errs []error
	for _, d := range []struct {
		key string
		val *string
	}{{"timeout", &c.Run.Timeout}, {"stall", &c.Run.Stall}} {
		if v, err := time.ParseDuration(*d.val); *d.val != "" && (err != nil || v < 0) {
			errs = append(errs, fmt.Errorf("%s:%d: run.%s = %q: use a duration like 30m", path, LineOf(data, d.key), d.key, *d.val))
			*d.val = ""
		}
	}
	if cpu := c.Run.CPU; cpu < 0 || math.IsNaN(cpu) || math.IsInf(cpu, 0) {
		errs = append(errs, fmt.Errorf("%s:%d: run.cpu = %v: use a number of cores like 0.5", path, LineOf(data, "cpu"), cpu))
		c.Run.CPU = 0
	}
	if c.Run.Pids < 0 {
		errs = append(errs, fmt.Errorf("%s:%d: run.pids = %d: use a positive number", path, LineOf(data, "pids"), c.Run.Pids))
		c.Run.Pids = 0
	}
	for k := range c.Run.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			errs = append(errs, fmt.Errorf("%s:%d: run.env: %q is not a variable name", path, LineOf(data, k), k))
			delete(c.Run.Env, k)
		}
	}
	for _, sz := range []struct {
		key string
		val *string
	}{{"memory", &c.Run.Memory}, {"retain", &c.Run.Retain}} {
		if *sz.val == "" || *sz.val == "0" {
			continue
		}
		if _, err := ParseBytes(*sz.val); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: run.%s = %q: %v", path, LineOf(data, sz.key), sz.key, *sz.val, err))
			*sz.val = ""
		}
	}
	// The redactor's own check, so that config and runs agree on what works.
	if _, err := patterns.NewRedactor(c.Run.Redact); err != nil {
		c.Run.RedactErr = fmt.Errorf("%s:%d: run.redact: %v; runs are refused until it is fixed", path, LineOf(data, "redact"), err)
		errs = append(errs, c.Run.RedactErr)
	}
	return errs
}

// checkSession drops a [session] value out of range and says why.
func checkSession(c *Config, path string, data []byte) []error {
	if m := c.Session.MaxParallel; m < 0 || m > MaxParallelLimit {
		c.Session.MaxParallel = 0
		return []error{fmt.Errorf("%s:%d: session.max_parallel = %d: use a number from 1 to %d", path, LineOf(data, "max_parallel"), m, MaxParallelLimit)}
	}
	return nil
}

// ParseBytes reads sizes like 512M, 2G, 64MiB or a plain number of bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "IB"), "B")
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("not a size (use e.g. 512M, 2G)")
	}
	if n*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("too large (at most 8E)")
	}
	return int64(n * float64(mult)), nil
}

// LineOf is the line of the file on which key is assigned, 0 when unknown.
func (c Config) LineOf(key string) int { return LineOf(c.raw, key) }

// LineOf finds the line on which key is assigned, for messages about values
// that parsed but make no sense (toml keeps no positions for those). 0 when
// not found.
func LineOf(data []byte, key string) int {
	re := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

// keyLines finds the line of each of keys (in the order toml.MetaData.Keys
// gives them, which is the file's) in data, by key string: the library
// keeps no positions of its own. Each key is looked for from the line of
// the one before, as a [table] header or as an assignment (dotted, or
// inside an inline table); 0 when not found (a table only implied).
func keyLines(data []byte, keys []toml.Key) map[string]int {
	lines := strings.Split(string(data), "\n")
	out := make(map[string]int, len(keys))
	cur := 0
	for _, k := range keys {
		var parts []string
		for _, p := range k {
			parts = append(parts, `["']?`+regexp.QuoteMeta(p)+`["']?`)
		}
		header := regexp.MustCompile(`^\s*\[\[?\s*` + strings.Join(parts, `\s*\.\s*`) + `\s*\]`)
		assign := regexp.MustCompile(`(^|[\s{,.])` + parts[len(parts)-1] + `\s*=`)
		for i := cur; i < len(lines); i++ {
			if header.MatchString(lines[i]) || assign.MatchString(lines[i]) {
				out[k.String()], cur = i+1, i
				break
			}
		}
	}
	return out
}
