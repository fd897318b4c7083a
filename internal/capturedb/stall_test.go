package capturedb

import (
	"context"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/testenv"
)

// stallProxy forwards loopback TCP to a server until it is stalled: then
// it forwards nothing, in either direction, and the server seems to hang.
type stallProxy struct {
	ln      net.Listener
	stalled atomic.Bool
}

func newStallProxy(t *testing.T, port int) *stallProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go p.pipe(c, s)
			go p.pipe(s, c)
		}
	}()
	return p
}

func (p *stallProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *stallProxy) pipe(src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.stalled.Load() {
			time.Sleep(10 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestSignalOnStalledServer: a signal ends a capture within 5 s whatever
// the server does: when the server hangs before the window (its first
// reads), and when it hangs at the window's end, where the last snapshot
// gets a few seconds' grace after the signal (issue 49: capture ignored
// Ctrl-C and SIGTERM for up to 2 minutes per step).
func TestSignalOnStalledServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private server")
	}
	srv := testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements")
	db := srv.NamedDB(t, "app")
	srv.Exec(t, db, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	for _, c := range []struct {
		name       string
		stallAfter time.Duration // from the start of the capture
	}{
		{"before the window", 0},
		{"during the window", 2 * time.Second},
	} {
		p := newStallProxy(t, srv.Port)
		url := srv.URLVia(p.port(), db)
		ctx, cancel := context.WithCancel(context.Background())
		if c.stallAfter == 0 {
			// Connected, then hung: the first reads wait on the server.
			go func() {
				time.Sleep(200 * time.Millisecond)
				p.stalled.Store(true)
			}()
		} else {
			time.AfterFunc(c.stallAfter, func() { p.stalled.Store(true) })
		}
		signal := 3 * time.Second
		time.AfterFunc(signal, cancel)
		start := time.Now()
		_, err := Capture(ctx, Options{Target: url, For: time.Minute, Getenv: func(string) string { return "" }})
		took := time.Since(start) - signal
		cancel()
		p.stalled.Store(false)
		if took > 5*time.Second {
			t.Errorf("%s: the capture ended %v after the signal, want within 5 s", c.name, took.Round(time.Millisecond))
		}
		if err == nil {
			t.Errorf("%s: a capture whose server hung returned no error", c.name)
		} else {
			t.Logf("%s: ended %v after the signal: %v", c.name, took.Round(time.Millisecond), err)
		}
	}
}
