package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/db"
	"github.com/flowdeck/flowdeck/model"
	"github.com/flowdeck/flowdeck/ops"
	"github.com/flowdeck/flowdeck/project"
)

// fleet_glance answers the project's glance (read-only), and the glance
// resource reads the same JSON.
func TestFleetGlanceToolAndResource(t *testing.T) {
	st, err := db.Open(filepath.Join(t.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "glance"}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanApply{Plan: model.Plan{Summary: "p", Features: []model.Feature{{ID: "a", Title: "A"}}}}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	cs := inProcess(t, st)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := false
	for _, tl := range tools.Tools {
		if tl.Name == "fleet_glance" {
			readOnly = tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		}
	}
	if !readOnly {
		t.Fatal("fleet_glance is not listed as a read-only tool")
	}
	text, isErr := rawCall(t, cs, "fleet_glance", nil)
	var g ops.FleetGlance
	if err := json.Unmarshal([]byte(text), &g); err != nil || isErr {
		t.Fatalf("fleet_glance: %s (%v)", text, err)
	}
	s, _ := st.Active()
	if !g.OK || g.API != ops.FleetAPI || g.Seq != s.Seq || g.Goal != "glance" || g.Total != 1 || g.Root != filepath.Dir(st.Dir()) ||
		len(g.Waits) != 1 || g.Waits[0].Kind != ops.FleetWaitPlan || g.Waits[0].Label != "plan approval" {
		t.Fatalf("fleet_glance: %s", text)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ops.FleetGlanceURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != text || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("the resource reads %+v, the tool %s", res.Contents, text)
	}
}

// waitFor polls cond until it holds; a minute is the backstop of a busy
// machine, never the expectation.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A client subscribed to the glance hears of a change another writer made
// (a second handle on the file, as another process has), only while it is
// subscribed; the watcher stops with the last subscription and with the
// session's end.
func TestGlanceUpdatesWhileSubscribed(t *testing.T) {
	path := filepath.Join(t.TempDir(), db.DBFile)
	st, err := db.Open(path, db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Do(model.PlanStart{Goal: "watched"}, "person", time.Now()); err != nil {
		t.Fatal(err)
	}
	other, err := db.Open(path, db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	note := func(text string) {
		t.Helper()
		if _, err := other.Do(model.AddNote{Text: text}, "elsewhere", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	s := newServer(project.FromStore(st, project.Options{Warn: io.Discard}), Options{WatchEvery: 10 * time.Millisecond})
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := s.srv.Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	var updates atomic.Int32
	client := sdk.NewClient(&sdk.Implementation{Name: "fleet"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			if req.Params.URI == ops.FleetGlanceURI {
				updates.Add(1)
			}
		}})
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.InitializeResult().Capabilities.Resources == nil || !cs.InitializeResult().Capabilities.Resources.Subscribe {
		t.Fatal("the server does not say it supports resource subscriptions")
	}
	if s.watching() {
		t.Fatal("the watcher runs with no subscription")
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ops.FleetGlanceURI}); err != nil {
		t.Fatal(err)
	}
	// The first update says the subscription is in place.
	waitFor(t, "the first update", func() bool { return updates.Load() == 1 })
	note("one")
	waitFor(t, "the update after another writer's note", func() bool { return updates.Load() == 2 })

	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: ops.FleetGlanceURI}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the watcher to stop after the unsubscription", func() bool { return !s.watching() })
	note("two")
	if got := updates.Load(); got != 2 {
		t.Fatalf("%d updates, want none after the unsubscription", got-2)
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ops.FleetGlanceURI}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first update of the new subscription", func() bool { return updates.Load() == 3 })
	note("three")
	waitFor(t, "the update after subscribing again", func() bool { return updates.Load() == 4 })

	cs.Close()
	waitFor(t, "the watcher to stop with the session", func() bool { return !s.watching() })
}

// A client of the earlier protocol (resources/subscribe) is refused a
// subscription to a doc, which never sends updates, and gets the glance's.
func TestGlanceSubscriptionLegacyProtocol(t *testing.T) {
	st, err := db.Open(filepath.Join(t.TempDir(), db.DBFile), db.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	s := newServer(project.FromStore(st, project.Options{Warn: io.Discard}), Options{WatchEvery: 10 * time.Millisecond})
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := s.srv.Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	updated := make(chan struct{}, 8)
	client := sdk.NewClient(&sdk.Implementation{Name: "old-fleet"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(context.Context, *sdk.ResourceUpdatedNotificationRequest) { updated <- struct{}{} }})
	cs, err := client.Connect(ctx, clientT, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: indexURI}); err == nil || !strings.Contains(err.Error(), ops.FleetGlanceURI) {
		t.Fatalf("a subscription to a doc: %v", err)
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ops.FleetGlanceURI}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-updated:
	case <-time.After(time.Minute):
		t.Fatal("no update after the subscription")
	}
	cs.Close()
	waitFor(t, "the watcher to stop with the session", func() bool { return !s.watching() })
	// Nothing of the session stays behind: the watcher, the goroutine that
	// waited for the session's end, the connection's.
	waitFor(t, "the session's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// A glance the project cannot give (its database is not one) is a tool
// error that still says api: unreadable now, not incompatible.
func TestFleetGlanceFailureSaysAPI(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, db.DBFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 512), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(dir, project.Options{AsRoot: true, Warn: io.Discard, Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := NewServer(p, Options{}).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "fleet"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, isErr := rawCall(t, cs, "fleet_glance", nil)
	var f ops.FleetGlanceFailure
	if err := json.Unmarshal([]byte(text), &f); err != nil || !isErr || f.OK || f.API != ops.FleetAPI || f.Error.Code == "" || !strings.Contains(f.Error.Message, db.DBFile) {
		t.Fatalf("fleet_glance on a broken database: %s (error %v)", text, isErr)
	}
}
