package patterns

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// pattern is one entry of a Set: a built-in Go matcher or a user TOML
// pattern, selected by a regex over the normalised command line.
type pattern struct {
	name       string
	source     string // "builtin" or a file path
	match      *regexp.Regexp
	category   Category // "" = from the command table
	newMatcher func(*Set) matcher
	filter     *failFilter // user failure filter; nil = the matcher's own or smart truncation
}

// SourceBuiltin is the Source of built-in patterns.
const SourceBuiltin = "builtin"

// Set is an ordered list of patterns: the first whose command_match
// matches the command line wins. Load puts project patterns first, then
// user patterns, then the built-ins. A Set is immutable and safe to share.
type Set struct {
	patterns []*pattern
}

// Info describes a pattern for `flowdeck patterns list`.
type Info struct {
	Name         string
	Source       string // "builtin" or the file path
	CommandMatch string
	Category     Category // "" when the pattern does not set one
}

// Builtin returns the built-in patterns only.
func Builtin() *Set {
	return &Set{patterns: builtinPatterns()}
}

// List returns every pattern in match order.
func (s *Set) List() []Info {
	out := make([]Info, 0, len(s.patterns))
	for _, p := range s.patterns {
		out = append(out, Info{Name: p.name, Source: p.source, CommandMatch: p.match.String(), Category: p.category})
	}
	return out
}

// Classifier starts classifying the output of argv (the command as run:
// argv[0] may be a path; env assignments, env, time, nice, sudo, npx and
// `sh -c SCRIPT` are looked through).
func (s *Set) Classifier(argv []string, opts Options) *Classifier {
	return newClassifier(s, argv, opts)
}

// Match returns the pattern that would classify argv, if any.
func (s *Set) Match(argv []string) (Info, bool) {
	line, _ := commandLine(argv)
	p := s.match(line)
	if p == nil {
		return Info{}, false
	}
	return Info{Name: p.name, Source: p.source, CommandMatch: p.match.String(), Category: p.category}, true
}

func (s *Set) match(line string) *pattern {
	for _, p := range s.patterns {
		if p.match.MatchString(line) {
			return p
		}
	}
	return nil
}

// commandLine returns the normalised command line that command_match
// regexes are matched against, and its words: words joined by single
// spaces, argv[0] reduced to its base name, and wrappers that do not change
// what runs (VAR=x, env, time, nice, nohup, sudo, npx, uv/poetry run, sh -c,
// cd DIR &&) removed.
func commandLine(argv []string) (string, []string) {
	w := normalize(argv, 0)
	return strings.Join(w, " "), w
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// transparent wrappers: they run their arguments as the command.
var transparent = map[string]bool{"time": true, "nohup": true, "command": true, "exec": true, "npx": true, "bunx": true, "pnpx": true, "sudo": true, "doas": true, "nice": true, "ionice": true, "stdbuf": true, "timeout": true}

// valueOpts lists, per wrapper, the options that take a separate value.
var valueOpts = map[string]string{
	"nice":    " -n --adjustment ",
	"ionice":  " -c -n -p ",
	"sudo":    " -u -g -C -D -h -p -U ",
	"doas":    " -u -C ",
	"npx":     " -p --package -c --call ",
	"timeout": " -s -k --signal --kill-after ",
	"stdbuf":  " -i -o -e ",
}

func normalize(argv []string, depth int) []string {
	w := append([]string(nil), argv...)
	for len(w) > 0 {
		first := filepath.Base(w[0])
		switch {
		case isAssignment(w[0]):
			w = w[1:]
		case first == "env":
			w = w[1:]
			for len(w) > 0 && (strings.HasPrefix(w[0], "-") || isAssignment(w[0])) {
				if w[0] == "-u" || w[0] == "-C" || w[0] == "--unset" || w[0] == "--chdir" {
					w = w[1:]
				}
				if len(w) > 0 {
					w = w[1:]
				}
			}
		case transparent[first]:
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				opt := w[0]
				w = w[1:]
				if len(w) > 0 && strings.Contains(valueOpts[first], " "+opt+" ") {
					w = w[1:] // the option's value
				}
			}
			if first == "timeout" && len(w) > 0 {
				w = w[1:] // the duration
			}
		case (first == "uv" || first == "poetry" || first == "pipenv" || first == "hatch" || first == "pdm" || first == "rye") && len(w) > 1 && w[1] == "run",
			(first == "pnpm" || first == "yarn" || first == "bun") && len(w) > 1 && (w[1] == "exec" || w[1] == "dlx" || w[1] == "x"):
			w = w[2:]
		case first == "cd" && len(w) > 2 && w[2] == "&&":
			w = w[3:]
		case shells[first] && depth < 3 && len(w) >= 3 && strings.HasPrefix(w[1], "-") && !strings.HasPrefix(w[1], "--") && strings.Contains(w[1], "c"):
			return normalize(strings.Fields(w[2]), depth+1)
		default:
			w[0] = first
			return w
		}
	}
	return w
}

func isAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// commandCategories is the category of a command by its name. Only the
// size of a successful, unsummarised output depends on it. Built on first
// use: most processes classify no command.
var commandCategories = categoryMap(
	"mkdir cp mv rm rmdir touch chmod chown chgrp ln install rsync scp tar unzip zip gzip gunzip kill pkill truncate",
	"cat head tail less more bat batcat nl tac xxd hexdump od jq yq",
	"ls find grep egrep fgrep rg ag ack fd fdfind tree ps env printenv du df lsof ss netstat mount lsblk locate")

// gitCategories is the category of a git subcommand.
var gitCategories = categoryMap(
	"add commit push pull fetch checkout switch merge rebase reset restore rm mv stash init clone cherry-pick revert am apply clean gc",
	"show diff blame cat-file format-patch range-diff",
	"log status shortlog reflog ls-files ls-tree branch tag grep remote describe worktree")

// categoryMap returns a function that maps, once built on its first call,
// the space-separated names of each list to its category.
func categoryMap(status, content, data string) func() map[string]Category {
	return sync.OnceValue(func() map[string]Category {
		m := map[string]Category{}
		for _, l := range []struct {
			c     Category
			names string
		}{{Status, status}, {Content, content}, {Data, data}} {
			for _, name := range strings.Fields(l.names) {
				m[name] = l.c
			}
		}
		return m
	})
}

func categoryOf(words []string) Category {
	if len(words) == 0 {
		return Unknown
	}
	if words[0] == "git" {
		rest := words[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			if rest[0] == "-C" || rest[0] == "-c" {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				rest = rest[1:]
			}
		}
		if len(rest) > 0 {
			if c, ok := gitCategories()[rest[0]]; ok {
				return c
			}
		}
		return Unknown
	}
	if c, ok := commandCategories()[words[0]]; ok {
		return c
	}
	return Unknown
}
