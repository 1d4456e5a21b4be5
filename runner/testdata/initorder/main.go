// Command initorder runs `true` under cgroup v1 limits and prints how long
// Run took: the isolation helper (a re-exec of this binary) must not pay
// for slowinit's init.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/flowdeck/flowdeck/runner"
	"github.com/flowdeck/flowdeck/runner/testdata/initorder/slowinit"
)

func main() {
	runner.Reexec()
	_ = slowinit.Loaded
	spec := runner.Spec{Argv: []string{"true"}, Limits: runner.Limits{Pids: 100}}
	if len(os.Args) > 1 && os.Args[1] == "fallback" {
		spec.ForceFallback, spec.Limits = true, runner.Limits{MemoryBytes: 1 << 30}
	}
	t0 := time.Now()
	res, err := runner.Run(context.Background(), spec)
	if err != nil || res.ExitCode != 0 {
		fmt.Println("error", res, err)
		os.Exit(1)
	}
	fmt.Println(time.Since(t0).Microseconds(), res.Isolation.Mechanism)
}
