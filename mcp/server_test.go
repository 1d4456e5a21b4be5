package mcp

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/project"
)

// In process (so that -race sees the server): tool calls, resource lists
// and a run with progress notifications, all at once.
func TestConcurrentCallsInProcess(t *testing.T) {
	st, err := db.Open(filepath.Join(t.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "in process"}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(project.FromStore(st, project.Options{Warn: io.Discard}), Options{ProgressEvery: 20 * time.Millisecond}).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int32
	client := sdk.NewClient(&sdk.Implementation{Name: "racer"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Go(func() {
		p := &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"command": []string{"sh", "-c", "echo a; sleep 0.3; echo b"}}}
		p.SetProgressToken(1)
		if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
			errs <- fmt.Errorf("run: %v %v", err, res)
		}
	})
	for w := range 4 {
		wg.Go(func() {
			for i := range 5 {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "flow_note", Arguments: map[string]any{"text": fmt.Sprintf("%d-%d", w, i)}})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("note: %v %v", err, res)
				}
				if _, err := cs.ListResources(ctx, nil); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, _ := st.Active()
	if s.NotesTotal != 20 || progress.Load() == 0 {
		t.Fatalf("notes %d, progress notifications %d", s.NotesTotal, progress.Load())
	}
	if hist := s.Execution.History; hist[len(hist)-1].Actor != "racer" {
		t.Fatalf("actor = %q, want the client's name", hist[len(hist)-1].Actor)
	}
}
