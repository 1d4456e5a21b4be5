package overssh

import (
	"fmt"
	"os"
	"testing"

	flowcli "github.com/flowdeck/flowdeck/cli"
	"github.com/flowdeck/flowdeck/fleet"
	"github.com/flowdeck/flowdeck/project"
	"github.com/flowdeck/flowdeck/ui"
	"github.com/flowdeck/flowdeck/ui/fleetview"
)

// viewHelperEnv makes the test binary a terminal program: "fleet" runs
// the fleet view (fleetview.Run) on the fleet.toml of $XDG_CONFIG_HOME,
// as `flowdeck fleet` is to; "cockpit" runs flowdeck's command line with
// the cockpit linked in (as flowdeck-cockpit does) on its arguments. No
// flowdeck command opens the fleet view yet, so the tmux test and the
// first-frame benchmark run it here; the benchmark compares it with the
// cockpit run from this same executable (the same package init), and with
// the real `flowdeck --dir D` besides.
const viewHelperEnv = "FLOWDECK_OVERSSH_VIEW"

// runView is the view helper's main.
func runView(mode string) int {
	switch mode {
	case "fleet":
		entries, err := fleet.LoadConfig(fleet.DefaultConfigPath())
		if err != nil {
			fmt.Fprintln(os.Stderr, "fleet view helper:", err)
			return 3
		}
		if err := fleetview.Run(entries, fleetview.Options{Fleet: fleet.Options{Version: "test"}}); err != nil {
			fmt.Fprintln(os.Stderr, "fleet view helper:", err)
			return 1
		}
		return 0
	case "cockpit":
		open := func(p *project.Project) error { return ui.Run(p, ui.Options{}) }
		return flowcli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, open)
	}
	fmt.Fprintf(os.Stderr, "%s=%q: want fleet or cockpit\n", viewHelperEnv, mode)
	return 2
}

// viewProgram is the argv and the environment additions that run mode
// ("fleet", or "cockpit" with args) through the view helper.
func viewProgram(tb testing.TB, mode string, args ...string) (argv, env []string) {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return append([]string{self}, args...), []string{viewHelperEnv + "=" + mode}
}
