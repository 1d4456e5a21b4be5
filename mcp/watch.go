package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/ops"
)

// The glance resource's updates. While a client is subscribed to
// ops.FleetGlanceURI, one goroutine polls the database file's fingerprint
// (a stat, as the cockpit does) and, when it moved and the glance it reads
// differs from the last one sent, sends notifications/resources/updated.
// Any process's write is seen: the cockpit's, a CLI call's, another
// server's. The watcher runs while a subscribed session is connected and
// ends with the last.
//
// The first poll after the watcher starts always notifies: a client cannot
// tell when its subscription took effect (under protocol 2026-07-28 the
// SDK's Subscribe returns before the server has it), so a change between
// its read of the glance and the subscription would otherwise go unheard.

// watchEvery is how often the watcher polls, by default.
const watchEvery = 250 * time.Millisecond

// subscribe is the server's SubscribeHandler: only the glance sends
// updates (the docs' changes come as resources/list_changed).
func (s *server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	if req.Params.URI != ops.FleetGlanceURI {
		return fmt.Errorf("%s cannot be subscribed: only %s sends updates (the docs' changes come as notifications/resources/list_changed)",
			req.Params.URI, ops.FleetGlanceURI)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subscribed[req.Session] {
		return nil
	}
	s.subscribed[req.Session] = true
	// The session's end ends its subscription (the SDK forgets it without
	// calling UnsubscribeHandler).
	go func(ss *sdk.ServerSession) {
		ss.Wait()
		s.unwatch(ss)
	}(req.Session)
	if s.stopWatch == nil {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		s.stopWatch, s.watchDone = cancel, done
		go s.watch(ctx, done)
	}
	return nil
}

// unsubscribe is the server's UnsubscribeHandler.
func (s *server) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	if req.Params.URI == ops.FleetGlanceURI {
		s.unwatch(req.Session)
	}
	return nil
}

// unwatch forgets ss's subscription; the watcher stops with the last one.
func (s *server) unwatch(ss *sdk.ServerSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subscribed, ss)
	if len(s.subscribed) == 0 && s.stopWatch != nil {
		s.stopWatch()
		s.stopWatch = nil
	}
}

// glanceState is what the watcher last saw: the file's fingerprint and the
// glance's JSON.
type glanceState struct{ stamp, glance string }

// glanceSeen is the glance read after the fingerprint stamp was taken, so
// a write that lands during the read is seen by the next poll.
func (s *server) glanceSeen(stamp string) glanceState {
	g := glanceState{stamp: stamp}
	if res, err := s.p.FleetGlance(); err == nil {
		data, _ := json.Marshal(res)
		g.glance = string(data)
	}
	return g
}

// watch polls until ctx ends, then closes done. It starts from nothing
// seen, so its first poll notifies.
func (s *server) watch(ctx context.Context, done chan struct{}) {
	defer close(done)
	var last glanceState
	t := time.NewTicker(s.opts.WatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		stamp, err := s.p.Stamp()
		if err != nil || stamp == last.stamp {
			continue
		}
		now := s.glanceSeen(stamp)
		// A read that failed (a busy or broken file) notifies too: the
		// client's read says what is wrong.
		if now.glance != last.glance || now.glance == "" {
			s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: ops.FleetGlanceURI})
		}
		last = now
	}
}

// watching reports whether the watcher runs (tests).
func (s *server) watching() bool {
	s.mu.Lock()
	done := s.watchDone
	s.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}
