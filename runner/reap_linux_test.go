package runner

import (
	"os/exec"
	"syscall"
	"testing"
)

// Reap kills a dead run's session, also a member that ignores SIGHUP, and
// spares a session whose leader is another process than the one recorded.
func TestReapKillsTheSession(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" HUP; sleep 1000 & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	wrong := Remains{Pid: pid, Start: procStart(pid) + 1}
	if n := Reap(wrong); n != 0 {
		t.Fatalf("Reap of a session with another leader signalled %d processes", n)
	}
	if n := Reap(Remains{Pid: pid, Start: procStart(pid)}); n == 0 {
		t.Fatal("Reap signalled nothing")
	}
	<-done
	if st, ok := procStat(pid); ok && st.state != 'Z' {
		t.Fatalf("leader still alive: %+v", st)
	}
}
