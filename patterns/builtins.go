package patterns

import (
	"regexp"
	"sync"
)

// py matches the ways a Python module is started.
const py = `python[0-9.]* -m `

// builtinPatterns, in match order: the first whose regex matches the
// normalised command line (see CommandLine) wins. Compiled on first use, not
// at init: most flowdeck processes classify nothing.
var builtinPatterns = sync.OnceValue(func() []*pattern {
	return []*pattern{
		builtin("go test", `^go test\b`, newGoTest),
		builtin("go build", `^go (build|install)\b`, newGoBuild),
		builtin("go vet", `^go vet\b`, newGoVet),
		builtin("cargo test", `^cargo (\+\S+ )?(test|t)\b`, newCargoTest),
		builtin("cargo build", `^cargo (\+\S+ )?(build|b|check|c|clippy|doc|rustc)\b`, newCargoBuild),
		builtin("pytest", `^(pytest(-3)?|py\.test(-3)?|`+py+`pytest)\b`, newPytest),
		builtin("unittest", `^`+py+`unittest\b`, newUnittest),
		builtin("jest", `^(jest|react-scripts test|craco test)\b`, newJest),
		builtin("vitest", `^vitest\b`, newVitest),
		builtin("node --test", `^node\b.*\s--test(\s|$)`, newNodeTest),
		builtin("mocha", `^(mocha|_mocha)\b`, newMocha),
		builtin("eslint", `^eslint\b`, newESLint),
		builtin("tsc", `^(tsc|vue-tsc)\b`, newTSC),
		builtin("ruff", `^(ruff|`+py+`ruff)\b`, newRuff),
		builtin("mypy", `^(mypy|dmypy|`+py+`mypy)\b`, newMypy),
		builtin("golangci-lint", `^golangci-lint\b`, newGolangciLint),
		builtin("npm script", `^(npm|pnpm|yarn|bun) (test|t|tst|run|run-script)\b`, newScriptRunner),
		builtin("make", `^g?make\b`, newMake),
	}
})

func builtin(name, re string, m func(*Set) matcher) *pattern {
	return &pattern{name: name, source: SourceBuiltin, match: regexp.MustCompile(re), newMatcher: m}
}
