package runner

import (
	"net"
	"sync/atomic"
	"testing"
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
