// Package patterns classifies a command's output, oo-style: it turns a
// test run into "142 passed, 0 failed, 12 packages, 3.2s", shows a failure
// through a filter, passes small output through and marks large output for
// indexing. It works on a stream: the runner writes raw pty bytes to a
// Classifier as they arrive, whatever their size, and calls Finish with
// the exit code. Memory stays bounded (a 1 GB output or a 50 MB line cost
// a few hundred KiB).
//
// # Decision
//
// Classification works on the output with terminal escape sequences
// removed (StripANSI); the caller keeps the raw bytes.
//
//  1. exit code != 0: Failure. Detail is the output through the pattern's
//     failure filter, or smart truncation (head and tail with
//     "... [N lines truncated] ...") when none applies. Summary names the
//     failing tests when the pattern knows them.
//  2. exit 0 and at most Options.SmallOutput bytes (4 KiB): Passthrough,
//     Detail is the whole output (Summary is still filled when a pattern
//     recognised the output).
//  3. exit 0 and a pattern summarised the output: Success, one line.
//  4. otherwise by the command's category: status commands (git push,
//     mkdir, cp, ...) are Quiet; content commands (cat, git diff, ...)
//     Passthrough with a bounded Detail; data commands (ls, git log, rg,
//     ...) and unknown commands Indexed.
//
// # Patterns
//
// A Set is an ordered list of patterns; the first whose command_match
// regex matches the normalised command line (CommandLine) wins. Built-in
// patterns are Go matchers that count across the stream: go test (plain,
// -v, -json), go build, go vet, cargo test, cargo build/check/clippy,
// pytest, python -m unittest, jest, vitest, node --test, eslint, tsc,
// ruff, mypy, golangci-lint, npm/pnpm/yarn/bun scripts and make (these two
// follow the commands they echo and summarise the tool they ran).
//
// User patterns are TOML files in .flow/patterns/ (project) and
// $XDG_CONFIG_HOME/flowdeck/patterns/ (user); Load(project, user) puts them
// before the built-ins, so project beats user beats built-in. A file holds
// one or more [[pattern]] tables:
//
//	[[pattern]]
//	name = "mytool"                   # shown by `flowdeck patterns list`
//	command_match = '^mytool\b'       # regex over the command line
//	category = "status"               # optional: status|content|data|unknown
//
//	[pattern.success]                 # optional: one-line summary
//	pattern = '(?P<n>\d+) widgets built'
//	summary = '{n} widgets built'     # {name}: a named group of pattern;
//	                                  # summary = "" is a bare ✓ (oo's quiet success)
//
//	[pattern.failure]                 # optional: what a failure shows
//	strategy = "grep"                 # tail | head | grep | between
//	grep = 'ERROR'                    # grep: lines matching
//	# lines = 30                      # tail, head (default 30)
//	# start = 'FAIL:'                 # between: from a line containing start
//	# end = 'make['                   #   through the next line containing end
//	                                  #   (plain text, as in oo; /…/ or
//	                                  #   regex = true for regexes)
//
// The success pattern is matched line by line (multi-line regexes do not
// apply); the last matching line wins; named groups that hold integers
// also land in Result.Counts. A file may instead hold a single pattern at
// its top level ([success] and [failure] tables, name defaulting to the
// file name), the shape oo uses. Regular expressions are Go RE2 syntax.
// Unknown keys, bad regexes and summary placeholders that name no group
// are errors; a file with an error is reported with its path and line and
// skipped, the others load.
//
// # Secrets
//
// Summary and Detail are redacted (see Redactor) before they are returned,
// so a Result can be stored as is. The runner redacts the stored output
// with its own Redactor, one per stream.
package patterns
