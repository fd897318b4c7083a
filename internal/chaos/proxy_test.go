package chaos

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proxy is a TCP proxy between rightsize and a server, on a free loopback
// port. It passes traffic through, stalls it (forwards nothing in either
// direction while keeping every connection open, new ones included) or cuts
// it (closes every connection, at once or every N seconds). Its methods are
// safe for concurrent use.
type proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // both ends of every open connection
	resume chan struct{}         // non-nil while stalled; closed when the stall ends
	stopCh chan struct{}         // closed by close
	wg     sync.WaitGroup

	accepted atomic.Int64 // connections accepted
}

// newProxy starts a proxy to target (host:port), closed when the test ends.
func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, stopCh: make(chan struct{})}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// port is the proxy's listening port.
func (p *proxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve forwards one client connection. During a stall the server is still
// dialled (a server that speaks first, as MySQL does, is held back by the
// stall like everything else).
func (p *proxy) serve(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, server) {
		client.Close()
		server.Close()
		return
	}
	var once sync.Once
	closeBoth := func() {
		once.Do(func() {
			client.Close()
			server.Close()
			p.untrack(client, server)
		})
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(server, client); closeBoth() }()
	go func() { defer wg.Done(); p.pipe(client, server); closeBoth() }()
	wg.Wait()
}

// pipe copies src to dst, waiting out stalls before forwarding each chunk.
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.gate() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// gate blocks while the proxy is stalled; false once the proxy is closed.
func (p *proxy) gate() bool {
	p.mu.Lock()
	ch := p.resume
	p.mu.Unlock()
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-p.stopCh:
		return false
	}
}

func (p *proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.stopCh:
		return false
	default:
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

// open returns how many connections are open (client and server ends count
// as one).
func (p *proxy) open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns) / 2
}

// stall stops forwarding in both directions until unstall; connections stay
// open and new ones are accepted (and held).
func (p *proxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume == nil {
		p.resume = make(chan struct{})
	}
}

// unstall forwards again what was held back.
func (p *proxy) unstall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resume != nil {
		close(p.resume)
		p.resume = nil
	}
}

// stallFor stalls the traffic for d, starting now.
func (p *proxy) stallFor(d time.Duration) {
	p.stall()
	time.AfterFunc(d, p.unstall)
}

// cut closes every open connection (both ends) and returns how many.
func (p *proxy) cut() int {
	p.mu.Lock()
	cs := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		cs = append(cs, c)
	}
	p.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
	return len(cs) / 2
}

// cutEvery cuts every connection every period until the returned function is
// called; it returns the times of the cuts and how many connections each cut.
func (p *proxy) cutEvery(period time.Duration) (stop func() (at []time.Time, n []int)) {
	done := make(chan struct{})
	var (
		mu  sync.Mutex
		at  []time.Time
		ns  []int
		fin = make(chan struct{})
	)
	go func() {
		defer close(fin)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-p.stopCh:
				return
			case now := <-tk.C:
				n := p.cut()
				mu.Lock()
				at, ns = append(at, now), append(ns, n)
				mu.Unlock()
			}
		}
	}()
	return func() ([]time.Time, []int) {
		close(done)
		<-fin
		mu.Lock()
		defer mu.Unlock()
		return at, ns
	}
}

// close stops the proxy: no more connections, every open one cut.
func (p *proxy) close() {
	p.mu.Lock()
	select {
	case <-p.stopCh:
		p.mu.Unlock()
		return
	default:
	}
	close(p.stopCh)
	p.mu.Unlock()
	p.ln.Close()
	p.cut()
	p.wg.Wait()
}

// echoServer is a line echo server for the proxy's own test.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestProxy: the proxy passes traffic; a stall holds back every byte in both
// directions without closing anything, new connections included, and lets
// it through when it ends; a cut closes every connection and later ones
// work.
func TestProxy(t *testing.T) {
	p := newProxy(t, echoServer(t))
	dial := func() (net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("tcp", p.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	roundTrip := func(c net.Conn, r *bufio.Reader, msg string, wait time.Duration) (string, error) {
		if _, err := c.Write([]byte(msg + "\n")); err != nil {
			return "", err
		}
		_ = c.SetReadDeadline(time.Now().Add(wait))
		defer c.SetReadDeadline(time.Time{})
		line, err := r.ReadString('\n')
		return line, err
	}
	c1, r1 := dial()
	if got, err := roundTrip(c1, r1, "pass", time.Second); err != nil || got != "pass\n" {
		t.Fatalf("pass: %q, %v", got, err)
	}

	p.stall()
	c2, r2 := dial() // accepted during the stall
	for _, cr := range []struct {
		c net.Conn
		r *bufio.Reader
	}{{c1, r1}, {c2, r2}} {
		if got, err := roundTrip(cr.c, cr.r, "held", 300*time.Millisecond); !isTimeout(err) {
			t.Fatalf("stalled: read %q, %v; want a timeout", got, err)
		}
	}
	if p.open() != 2 {
		t.Errorf("%d connections open during the stall, want 2", p.open())
	}
	p.unstall()
	for _, r := range []*bufio.Reader{r1, r2} {
		_ = c1.SetReadDeadline(time.Now().Add(time.Second))
		_ = c2.SetReadDeadline(time.Now().Add(time.Second))
		if got, err := r.ReadString('\n'); err != nil || got != "held\n" {
			t.Fatalf("after the stall: %q, %v", got, err)
		}
	}

	if n := p.cut(); n != 2 {
		t.Errorf("cut %d connections, want 2", n)
	}
	_ = c1.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := r1.ReadString('\n'); err == nil || isTimeout(err) {
		t.Errorf("read after the cut: %v, want the connection closed", err)
	}
	c3, r3 := dial()
	if got, err := roundTrip(c3, r3, "again", time.Second); err != nil || got != "again\n" {
		t.Fatalf("after the cut: %q, %v", got, err)
	}
	if p.accepted.Load() != 3 {
		t.Errorf("accepted %d, want 3", p.accepted.Load())
	}
}

// isTimeout tells a read that merely waited from one on a closed connection.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
