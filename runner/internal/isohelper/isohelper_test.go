package isohelper

import (
	"reflect"
	"testing"
)

func TestArgsRoundTrip(t *testing.T) {
	c := &Config{
		Cgroups:      []string{"/sys/fs/cgroup/pids/flowdeck/1-2-3/tasks", "/odd=path:with/colons"},
		Rlimits:      []Rlimit{{Resource: 9, Limit: 64 << 20}, {Resource: 6, Limit: 1<<64 - 1}},
		LoopbackUp:   true,
		ClearAmbient: true,
		Path:         "/usr/bin/env",
	}
	argv := []string{"env", "--", "-lo", "-path=x"} // look like options: must stay argv
	args := c.Args(argv)
	if args[0] != Arg {
		t.Fatalf("args[0] = %q", args[0])
	}
	got, gotArgv, ok := parse(args[1:])
	if !ok || !reflect.DeepEqual(got, c) || !reflect.DeepEqual(gotArgv, argv) {
		t.Fatalf("round trip: ok=%v\n%+v %q\nwant\n%+v %q", ok, got, gotArgv, c, argv)
	}
	for _, bad := range [][]string{{"-what"}, {"-rlimit=x:1", "--"}, {"-lo"}} {
		if _, _, ok := parse(bad); ok {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}
