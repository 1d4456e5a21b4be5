package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/ops"
)

// A fleet's view of a real `flowdeck mcp`: the handshake names the
// version, fleet_glance answers the API, and a change made by another
// process (a CLI call) reaches the subscribed client as an update, after
// which the glance says it.
func TestFleetGlanceUpdatesAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	flowdeck(t, dir, "flow", "plan", "start", "fleet goal")
	updated := make(chan struct{}, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "fleet", Version: "1"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			if req.Params.URI == ops.FleetGlanceURI {
				updated <- struct{}{}
			}
		}})
	cmd := exec.Command(bin, "--dir", dir, "mcp")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ServerInfo.Version; v == "" {
		t.Fatal("the handshake names no version")
	}
	next := func(what string) {
		t.Helper()
		select {
		case <-updated:
		case <-ctx.Done():
			t.Fatalf("no update: %s", what)
		}
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ops.FleetGlanceURI}); err != nil {
		t.Fatal(err)
	}
	next("the first, which says the subscription is in place")
	g := mustOK(t, cs, "fleet_glance", nil)
	if g["api"] != float64(ops.FleetAPI) || g["goal"] != "fleet goal" || g["root"] == "" {
		t.Fatalf("fleet_glance: %v", g)
	}
	seq := g["seq"].(float64)

	flowdeck(t, dir, "flow", "note", "from another process")
	next("after another process's note")
	if g := mustOK(t, cs, "fleet_glance", nil); g["seq"].(float64) <= seq {
		t.Fatalf("the glance after the update: seq %v, was %v", g["seq"], seq)
	}
}
