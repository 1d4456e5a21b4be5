package runner

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// netListen is a loopback TCP listener that counts accepted connections.
type netListen struct {
	port int
	n    atomic.Int64
}

func (l *netListen) open(t *testing.T) (*netListen, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { ln.Close() })
	l.port = ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.n.Add(1)
			c.Close()
		}
	}()
	return l, nil
}

func (l *netListen) accepted() int64 { return l.n.Load() }

// waitAccepted waits until the listener has accepted at least n connections
// (an established connection is counted only when Accept returns).
func (l *netListen) waitAccepted(t *testing.T, n int64) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); l.accepted() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("listener accepted %d connection(s), want %d", l.accepted(), n)
		}
	}
}

// sentinel connects from the test itself and waits until that connection
// is accepted. The accept queue is first in, first out, so every
// connection established before it has been counted by then.
func (l *netListen) sentinel(t *testing.T) int64 {
	t.Helper()
	before := l.accepted()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", l.port))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	l.waitAccepted(t, before+1)
	return l.accepted()
}
