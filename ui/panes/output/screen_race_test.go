package output

import (
	"sync"
	"testing"
)

// Closing a screen while its drain goroutine reads must not race (run
// with -race): the cockpit closes a feed's emulator from the update loop
// while the drain goroutine of that emulator is inside Read.
func TestScreenCloseWhileDraining(t *testing.T) {
	var wg sync.WaitGroup
	for range 50 {
		s := NewScreen(80, 24)
		// A cursor position query makes the emulator answer on the pipe
		// the drain goroutine reads.
		s.Feed([]byte("hello\x1b[6n\x1b[2J\x1b[Hworld"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Close()
		}()
	}
	wg.Wait()
}
