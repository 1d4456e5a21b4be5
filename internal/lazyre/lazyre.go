// Package lazyre compiles a regular expression on its first use. The lean
// flowdeck binary starts many times a minute and most runs use none of the
// tables of expressions its packages hold, so none is compiled at init.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr once, on its first call, and
// returns the result ever after. expr must be valid: an invalid one panics
// at that first call, as regexp.MustCompile would at init.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
