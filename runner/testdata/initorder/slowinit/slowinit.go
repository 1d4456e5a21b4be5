// Package slowinit stands in for a heavy dependency (go-runewidth's tables
// take ~18 ms): its init sleeps 100 ms.
package slowinit

import "time"

func init() { time.Sleep(100 * time.Millisecond) }

// Loaded is referenced so the import is kept.
var Loaded = true
