package fleetview

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/ops"
)

func TestScratch(t *testing.T) {
	f := newFake()
	entries := []fleet.Entry{{Name: "alpha", Dir: "/srv/alpha"}, {Name: "beta", Dir: "/home/me/src/beta"}, {Name: "gpu", Command: []string{"ssh", "gpu", "flowdeck", "--dir", "/srv/app", "mcp"}}}
	h := newHarness(t, f, entries, 80, 24, testConfig())
	fmt.Print(h.screen())
	w1 := ops.FleetWait{Kind: "review", Key: "review:s1:parser@12", Label: "review parser", Feature: "parser", Since: t0.Add(-12 * time.Minute)}
	w2 := ops.FleetWait{Kind: "decision", Key: "decision:d1", Label: "decision run-3 pick", Decision: "d1", Reason: "Which approach?\nA or B.", Since: t0.Add(-5 * time.Minute),
		Options: []ops.FleetOption{{ID: "a", Label: "approach A"}, {ID: "b"}}}
	st := []fleet.Status{
		{Entry: entries[0], Reach: fleet.Reachable, Glance: &ops.FleetGlance{Goal: "Password reset", Status: "in_progress", Done: 3, Total: 8, Waits: []ops.FleetWait{w1},
			Active: []ops.FleetActive{{Feature: "reset-api", Agent: "claude"}}, LastActivity: t0.Add(-3 * time.Minute)}},
		{Entry: entries[1], Reach: fleet.Reachable, Glance: &ops.FleetGlance{Goal: "Parser rewrite", Status: "planning", Done: 0, Total: 4, Waits: []ops.FleetWait{w2}, LastActivity: t0.Add(-2 * time.Hour)}},
		{Entry: entries[2], Reach: fleet.Unreachable, Err: "ssh: connect to host gpu port 22: Connection refused", Retry: t0.Add(5 * time.Second)},
	}
	f.set(st, []fleet.Item{{Project: "alpha", Wait: w1, Seq: 12}, {Project: "beta", Wait: w2, Seq: 4}})
	h.waitSee("Password reset")
	fmt.Print(h.screen())
	h.key("tab", "enter")
	h.waitSee("package x")
	fmt.Print(h.screen())
	h.key("a")
	h.waitSee("approved")
	fmt.Print(h.screen())
	h.key("j", "enter")
	fmt.Print(h.screen())
	h.key("?")
	fmt.Print(h.screen())
	h.key("esc", "2")
	h.send(windowSize(40, 12))
	fmt.Print(h.screen())
}
