package mcp

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/patterns"
)

// meter counts a running command's output as it streams by.
type meter struct{ bytes, lines atomic.Int64 }

func (m *meter) Write(p []byte) (int, error) {
	m.bytes.Add(int64(len(p)))
	m.lines.Add(int64(bytes.Count(p, []byte{'\n'})))
	return len(p), nil
}

// reportProgress sends a progress notification every ProgressEvery while a
// command runs, when the client asked for progress. Progress is the elapsed
// seconds, which always grow (output may pause); the message says how much
// output there is so far. stop waits until no notification is in flight, so
// none follows the result.
func (s *server) reportProgress(ctx context.Context, req *sdk.CallToolRequest, m *meter, timeout time.Duration) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		tick := time.NewTicker(s.opts.ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				elapsed := now.Sub(start)
				p := &sdk.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      elapsed.Seconds(),
					Message: fmt.Sprintf("%s: %d lines, %s of output", elapsed.Round(100*time.Millisecond),
						m.lines.Load(), patterns.HumanBytes(m.bytes.Load())),
				}
				if timeout > 0 {
					p.Total = timeout.Seconds()
				}
				req.Session.NotifyProgress(ctx, p) // best effort: a lost notification is harmless
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
