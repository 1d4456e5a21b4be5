//go:build unix && !linux

package runner

// readingTerminal: nothing outside Linux tells which process waits on a
// terminal, so neither end-of-file nor the stall check applies there.
func readingTerminal(int, string) bool { return false }

func procStart(int) uint64 { return 0 }
