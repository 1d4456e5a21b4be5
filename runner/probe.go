package runner

// Capabilities is what this machine offers the isolator, for
// `flowdeck doctor`. Probe creates and removes a test cgroup and starts one
// short helper process to find out.
type Capabilities struct {
	OS          string
	Cgroup      string       // "v2", "v1", "hybrid" (both mounted), "none"
	Mechanism   string       // what a run with memory, pids and cpu limits gets
	Enforced    []string     // what such a run gets enforced
	Controllers []Controller // memory, pids, cpu for each cgroup version
	Network     Feature      // --no-network
	Notes       []string     // why something is not available
}

// Controller says whether one cgroup controller can limit runs.
type Controller struct {
	Name    string // "memory", "pids", "cpu"
	Version string // "v1", "v2"
	Dir     string // where runs' cgroups go
	Usable  bool
	Reason  string // why not, when not usable
}

// Feature is one capability that is there or not, and why.
type Feature struct {
	Available bool
	Method    string // how, e.g. "netns" or "userns+netns"
	Reason    string // why not, when not available
}
