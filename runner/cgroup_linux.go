package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const cpuPeriodUS = 100000

// hierarchy is where this process sits in the cgroup trees.
type hierarchy struct {
	v2Dir string            // our cgroup2 directory, "" without a cgroup2 mount
	v2Err string            // why there is none
	v1Dir map[string]string // v1 controller → our cgroup directory in its hierarchy
}

var (
	hierOnce sync.Once
	hier     hierarchy
	runSeq   atomic.Int64
)

func hierarchies() *hierarchy {
	hierOnce.Do(func() { hier = readHierarchy() })
	return &hier
}

func readHierarchy() hierarchy {
	h := hierarchy{v1Dir: map[string]string{}}
	own := map[string]string{} // controller ("" for v2) → path from /proc/self/cgroup
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			parts := strings.SplitN(line, ":", 3)
			if len(parts) != 3 {
				continue
			}
			if parts[0] == "0" && parts[1] == "" {
				own[""] = parts[2]
				continue
			}
			for _, c := range strings.Split(parts[1], ",") {
				own[c] = parts[2]
			}
		}
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		h.v2Err = "cannot read /proc/self/mountinfo: " + err.Error()
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, fl := range fields {
			if fl == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		root, mnt, fstype := unescapeMount(fields[3]), unescapeMount(fields[4]), fields[sep+1]
		switch fstype {
		case "cgroup2":
			if p, ok := own[""]; ok && h.v2Dir == "" {
				if d, ok := joinMount(mnt, root, p); ok {
					h.v2Dir = d
				}
			}
		case "cgroup":
			for _, opt := range strings.Split(fields[sep+3], ",") {
				p, ok := own[opt]
				if !ok || h.v1Dir[opt] != "" {
					continue
				}
				if d, ok := joinMount(mnt, root, p); ok {
					h.v1Dir[opt] = d
				}
			}
		}
	}
	if h.v2Dir == "" {
		h.v2Err = "no cgroup2 mount for this process"
	}
	return h
}

// joinMount maps a cgroup path to a directory, given a mount of the
// hierarchy whose root is root (containers mount a subtree).
func joinMount(mnt, root, path string) (string, bool) {
	if root == "/" {
		return filepath.Join(mnt, path), true
	}
	if path == root || strings.HasPrefix(path, root+"/") {
		return filepath.Join(mnt, strings.TrimPrefix(path, root)), true
	}
	return "", false
}

func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupRun is one run's cgroup: one directory on v2, one per controller on v1.
type cgroupRun struct {
	version  int
	dirs     map[string]string // controller → dir; on v2 every entry is the same dir
	main     string            // the directory that lists the run's processes
	bases    []string          // the "flowdeck" parents, removed when empty
	fd       int               // v2: directory fd for clone3 CLONE_INTO_CGROUP; -1 otherwise
	enforced []string          // controllers with a limit written
	reasons  map[string]string // controller → why it is not enforced
}

func (g *cgroupRun) covers(want []string) bool {
	for _, c := range want {
		if g.reasons[c] != "" {
			return false
		}
	}
	return true
}

// runName names a run's cgroup "<pid namespace>-<pid>-<seq>", so that
// cleanStale can tell runs of dead flowdeck processes from live ones, also
// when containers with other pid namespaces share the cgroup tree.
func runName() string {
	return fmt.Sprintf("%s-%d-%d", pidNS(), os.Getpid(), runSeq.Add(1))
}

var pidNS = sync.OnceValue(func() string {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return "0"
	}
	return strconv.FormatUint(st.Ino, 10)
})

// v2Parent is the cgroup2 directory under which runs are created:
// $FLOWDECK_CGROUP (a delegated cgroup) or our own.
func v2Parent() (string, error) {
	if d := os.Getenv("FLOWDECK_CGROUP"); d != "" {
		return d, nil
	}
	h := hierarchies()
	if h.v2Dir == "" {
		return "", errors.New(h.v2Err)
	}
	return h.v2Dir, nil
}

// setupV2 creates <parent>/flowdeck/<run>, enabling the controllers the
// limits need on the way down, and writes the limits. Controllers that cannot
// be enabled are left out with a reason; the cgroup still tracks processes.
func setupV2(l Limits, name string) (*cgroupRun, error) {
	parent, err := v2Parent()
	if err != nil {
		return nil, err
	}
	base := filepath.Join(parent, "flowdeck")
	g := &cgroupRun{version: 2, dirs: map[string]string{}, fd: -1, reasons: map[string]string{}, bases: []string{base}}
	var dir string
	for attempt := 0; ; attempt++ {
		if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("create %s: %w", base, unwrapStart(err))
		}
		cleanStale(base)
		clear(g.reasons)
		for _, c := range wanted(l) {
			if r := enableV2(parent, base, c); r != "" {
				g.reasons[c] = r
			}
		}
		dir = filepath.Join(base, name)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		// Another run may have removed the empty base in between: retry.
		if !errors.Is(err, os.ErrNotExist) || attempt == 2 {
			return nil, fmt.Errorf("create %s: %w", dir, unwrapStart(err))
		}
	}
	g.main = dir
	for _, c := range []string{ctlMemory, ctlPids, ctlCPU} {
		g.dirs[c] = dir
	}
	write := func(c, file, val string) {
		if g.reasons[c] != "" {
			return
		}
		if err := writeFile(filepath.Join(dir, file), val); err != nil {
			g.reasons[c] = fmt.Sprintf("cannot write %s: %v", file, err)
		}
	}
	if l.MemoryBytes > 0 {
		write(ctlMemory, "memory.max", strconv.FormatInt(l.MemoryBytes, 10))
		if g.reasons[ctlMemory] == "" {
			// Without swap the limit is a RAM+swap limit; the file is absent when swap accounting is off.
			if err := writeFile(filepath.Join(dir, "memory.swap.max"), "0"); err != nil && !errors.Is(err, os.ErrNotExist) {
				g.reasons[ctlMemory] = "cannot write memory.swap.max: " + err.Error()
			}
		}
	}
	if l.Pids > 0 {
		write(ctlPids, "pids.max", strconv.Itoa(l.Pids))
	}
	if l.CPU > 0 {
		write(ctlCPU, "cpu.max", fmt.Sprintf("%d %d", cpuQuota(l.CPU), cpuPeriodUS))
	}
	g.markEnforced(l)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		g.remove()
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	g.fd = fd
	return g, nil
}

// enableV2 makes controller c available in base's children, enabling it in
// parent first when needed. It returns why that is impossible, or "".
func enableV2(parent, base, c string) string {
	if !hasWord(filepath.Join(base, "cgroup.controllers"), c) {
		if !hasWord(filepath.Join(parent, "cgroup.controllers"), c) {
			if hierarchies().v1Dir[c] != "" {
				return "controller is attached to a cgroup v1 hierarchy on this machine"
			}
			return fmt.Sprintf("controller not available in %s (not delegated to it)", parent)
		}
		if err := writeFile(filepath.Join(parent, "cgroup.subtree_control"), "+"+c); err != nil {
			why := err.Error()
			if errors.Is(err, unix.EBUSY) {
				why = "it has processes of its own (start flowdeck in a delegated cgroup, e.g. systemd-run --user --scope -p Delegate=yes, or set FLOWDECK_CGROUP to an empty delegated cgroup)"
			}
			return fmt.Sprintf("cannot enable it in %s: %s", parent, why)
		}
	}
	if !hasWord(filepath.Join(base, "cgroup.subtree_control"), c) {
		if err := writeFile(filepath.Join(base, "cgroup.subtree_control"), "+"+c); err != nil {
			return fmt.Sprintf("cannot enable it in %s: %v", base, err)
		}
	}
	return ""
}

// setupV1 creates <own cgroup>/flowdeck/<run> in the memory, pids and cpu
// hierarchies that the limits need; pids always, because it is the cheapest
// way to list (and kill) every process of the run.
func setupV1(l Limits, name string) (*cgroupRun, error) {
	h := hierarchies()
	g := &cgroupRun{version: 1, dirs: map[string]string{}, fd: -1, reasons: map[string]string{}}
	want := wanted(l)
	if l.Pids == 0 {
		want = append([]string{ctlPids}, want...)
	}
	for _, c := range want {
		own := h.v1Dir[c]
		if own == "" {
			g.reasons[c] = "no cgroup v1 hierarchy with this controller is mounted"
			continue
		}
		base := filepath.Join(own, "flowdeck")
		dir := filepath.Join(base, name)
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			if err = os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				break
			}
			cleanStale(base)
			// ENOENT: another run removed the empty base meanwhile; again.
			if err = os.Mkdir(dir, 0o755); !errors.Is(err, os.ErrNotExist) {
				break
			}
		}
		if err != nil {
			g.reasons[c] = err.Error() // "mkdir <path>: <why>"
			continue
		}
		g.dirs[c] = dir
		g.bases = append(g.bases, base)
		if g.main == "" || c == ctlPids {
			g.main = dir
		}
		var werr error
		switch c {
		case ctlMemory:
			v := strconv.FormatInt(l.MemoryBytes, 10)
			if werr = writeFile(filepath.Join(dir, "memory.limit_in_bytes"), v); werr == nil {
				// memsw = memory means no swap; absent without swap accounting.
				if err := writeFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), v); err != nil && !errors.Is(err, os.ErrNotExist) {
					werr = fmt.Errorf("memory.memsw.limit_in_bytes: %w", err)
				}
			}
		case ctlPids:
			if l.Pids > 0 {
				werr = writeFile(filepath.Join(dir, "pids.max"), strconv.Itoa(l.Pids))
			}
		case ctlCPU:
			if werr = writeFile(filepath.Join(dir, "cpu.cfs_period_us"), strconv.Itoa(cpuPeriodUS)); werr == nil {
				werr = writeFile(filepath.Join(dir, "cpu.cfs_quota_us"), strconv.FormatInt(cpuQuota(l.CPU), 10))
			}
		}
		if werr != nil {
			g.reasons[c] = "cannot write the limit: " + werr.Error()
		}
	}
	if g.main == "" {
		return nil, errors.New("no cgroup v1 hierarchy usable: " + joinReasons(g.reasons))
	}
	g.markEnforced(l)
	return g, nil
}

func (g *cgroupRun) markEnforced(l Limits) {
	for _, c := range wanted(l) {
		if g.reasons[c] == "" {
			g.enforced = append(g.enforced, c)
		}
	}
}

// joinFiles are the files the helper writes "0" into (v1). It writes the
// per-thread "tasks" file, not "cgroup.procs": moving a whole process takes
// the kernel's global threadgroup lock, whose RCU grace period cost 5–16 ms
// per run here, while moving only the calling thread skips it (~0.3 ms).
// The helper execs from that same thread, so the command lands inside.
func (g *cgroupRun) joinFiles() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range []string{ctlPids, ctlMemory, ctlCPU} {
		if d := g.dirs[c]; d != "" && !seen[d] {
			seen[d] = true
			out = append(out, filepath.Join(d, "tasks"))
		}
	}
	return out
}

// killAll SIGKILLs every process in the cgroup, until it is empty or ~1 s
// passed (processes forked meanwhile show up in the next round).
func (g *cgroupRun) killAll() {
	if g.version == 2 {
		if err := writeFile(filepath.Join(g.main, "cgroup.kill"), "1"); err == nil {
			return
		}
	}
	pause := time.Millisecond
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		pids := readPids(filepath.Join(g.main, "cgroup.procs"))
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// counters reads how many processes the memory limit killed and how many
// forks the pids limit refused.
func (g *cgroupRun) counters() (oomKills, forkFails uint64) {
	if d := g.dirs[ctlMemory]; d != "" {
		file := "memory.events"
		if g.version == 1 {
			file = "memory.oom_control"
		}
		oomKills = keyedValue(filepath.Join(d, file), "oom_kill")
	}
	if d := g.dirs[ctlPids]; d != "" {
		forkFails = keyedValue(filepath.Join(d, "pids.events"), "max")
	}
	return oomKills, forkFails
}

// remove deletes the run's directories (waiting briefly for dying processes
// to leave) and the "flowdeck" parents when no other run uses them.
func (g *cgroupRun) remove() {
	if g.fd >= 0 {
		unix.Close(g.fd)
		g.fd = -1
	}
	seen := map[string]bool{}
	for _, d := range g.dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		for i := 0; i < 200; i++ {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			if i%20 == 19 {
				g.killAll()
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for _, b := range g.bases {
		os.Remove(b) // fails while other runs live there: fine
	}
}

var staleCleaned sync.Map

// cleanStale removes run cgroups left by flowdeck processes of our pid
// namespace that died (crashed or SIGKILLed before they could clean up).
func cleanStale(base string) {
	if _, done := staleCleaned.LoadOrStore(base, true); done {
		return
	}
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		parts := strings.Split(e.Name(), "-")
		if !e.IsDir() || len(parts) != 3 || parts[0] != pidNS() {
			continue
		}
		pid, err := strconv.Atoi(parts[1])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			d := filepath.Join(base, e.Name())
			for _, p := range readPids(filepath.Join(d, "cgroup.procs")) {
				syscall.Kill(p, syscall.SIGKILL)
			}
			os.Remove(d)
		}
	}
}

func cpuQuota(cores float64) int64 {
	q := int64(cores * cpuPeriodUS)
	if q < 1000 {
		q = 1000 // the kernel's minimum quota is 1 ms
	}
	return q
}

func writeFile(path, val string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(val)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func hasWord(path, word string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, w := range strings.Fields(string(b)) {
		if w == word {
			return true
		}
	}
	return false
}

func keyedValue(path, key string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(" "))
		if ok && string(k) == key {
			n, _ := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
			return n
		}
	}
	return 0
}

func readPids(path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func joinReasons(m map[string]string) string {
	var parts []string
	for _, c := range []string{ctlPids, ctlMemory, ctlCPU} {
		if r := m[c]; r != "" {
			parts = append(parts, c+": "+r)
		}
	}
	return strings.Join(parts, "; ")
}
