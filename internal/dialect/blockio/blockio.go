// Package blockio provides a net.Conn whose reads and writes are plain
// blocking system calls, the way libpq and libmysqlclient do I/O.
//
// Why: a database benchmark's client spends most of its CPU on loopback
// round trips. Through Go's netpoller a round trip costs a write, a read that
// fails with EAGAIN, an epoll wait and a second read, plus futex wake-ups
// between the threads that park and run goroutines: measured here, about twice
// the client CPU per query of sysbench on 2 cores, CPU the database server then
// lacks. With the socket in blocking mode a round trip is one write and one
// read, and the kernel wakes the waiting thread directly. The price is one OS
// thread per connection blocked in read(2) — what C clients pay too.
//
// Deadlines: a deadline in the future is applied with SO_RCVTIMEO/SO_SNDTIMEO
// (a read or write that times out returns os.ErrDeadlineExceeded); a deadline
// in the past interrupts I/O in progress by shutting the socket down, which
// ends the connection — drivers use it only to abandon a cancelled query.
// Close may be called from any goroutine, also during a blocked read.
package blockio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Dial connects like net.Dialer.DialContext, then returns a blocking Conn on
// the same socket. Only TCP and Unix stream sockets are supported. It has the
// signature of drivers' dial functions; DialConn returns the *Conn.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	bc, err := DialConn(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return bc, nil
}

// DialConn is Dial.
func DialConn(ctx context.Context, network, addr string) (*Conn, error) {
	d := net.Dialer{KeepAlive: 5 * time.Minute}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	bc, err := FromConn(c)
	if err != nil {
		c.Close()
		return nil, err
	}
	return bc, nil
}

// FromConn takes over c's socket: it duplicates the descriptor, puts the copy
// in blocking mode and closes c.
func FromConn(c net.Conn) (*Conn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("blockio: %T has no file descriptor", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) {
		fd, dupErr = unix.Dup(int(s))
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, fmt.Errorf("blockio: dup: %w", dupErr)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("blockio: set blocking: %w", err)
	}
	bc := &Conn{fd: fd, laddr: c.LocalAddr(), raddr: c.RemoteAddr()}
	c.Close() // the duplicate keeps the socket open
	return bc, nil
}

const closedBit = int64(1) << 62

// Conn is a blocking socket. Read and Write may run concurrently with each
// other and with Close.
type Conn struct {
	fd           int
	laddr, raddr net.Addr
	// state counts I/O calls in flight; closedBit is set by Close. The
	// descriptor is closed by whoever leaves last, so it is never reused while
	// a call still holds its number.
	state     atomic.Int64
	closeOnce sync.Once
	shutOnce  sync.Once
	expired   atomic.Bool // a past deadline shut the socket down

	// timers interrupt a read or write (0, 1) in progress when its
	// deadline passes: SO_RCVTIMEO and SO_SNDTIMEO bound only the calls
	// made after them, and a driver sets a deadline to end a call already
	// blocked (pgx's cancellation, when the server does not answer).
	timerMu sync.Mutex
	timers  [2]*time.Timer
	// armed counts each direction's deadlines set; busy is, while a call
	// of that direction runs, the count when it began, plus one (0: none).
	armed, busy [2]atomic.Int64
}

var _ net.Conn = (*Conn)(nil)

func (c *Conn) begin() bool {
	for {
		s := c.state.Load()
		if s&closedBit != 0 {
			return false
		}
		if c.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

func (c *Conn) end() {
	if c.state.Add(-1) == closedBit {
		c.closeFD()
	}
}

func (c *Conn) closeFD() { c.closeOnce.Do(func() { unix.Close(c.fd) }) }

func (c *Conn) shutdown() { c.shutOnce.Do(func() { unix.Shutdown(c.fd, unix.SHUT_RDWR) }) }

func (c *Conn) opError(op string, err error) error {
	if c.expired.Load() {
		err = os.ErrDeadlineExceeded
	} else if errors.Is(err, unix.EAGAIN) {
		err = os.ErrDeadlineExceeded // SO_RCVTIMEO / SO_SNDTIMEO elapsed
	}
	return &net.OpError{Op: op, Net: c.laddr.Network(), Source: c.laddr, Addr: c.raddr, Err: err}
}

// Read reads into p, blocking until data, end of stream or an error.
func (c *Conn) Read(p []byte) (int, error) {
	if !c.begin() {
		return 0, c.opError("read", net.ErrClosed)
	}
	defer c.end()
	if len(p) == 0 {
		return 0, nil
	}
	c.busy[0].Store(c.armed[0].Load() + 1)
	defer c.busy[0].Store(0)
	for {
		n, err := unix.Read(c.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, c.opError("read", err)
		}
		if n == 0 {
			if c.expired.Load() {
				return 0, c.opError("read", os.ErrDeadlineExceeded)
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

// Peek copies into p the first bytes waiting to be read, without consuming
// them: it waits until there are some, the peer closes the stream (io.EOF),
// or ctx ends. When ctx ends first, the socket is shut down (the connection
// is over) and Peek returns ctx's error. It is for protocols in which the
// server speaks first (MySQL's greeting): whether it spoke, and what.
func (c *Conn) Peek(ctx context.Context, p []byte) (int, error) {
	if !c.begin() {
		return 0, c.opError("read", net.ErrClosed)
	}
	defer c.end()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	stop := context.AfterFunc(ctx, c.shutdown)
	for {
		n, _, err := unix.Recvfrom(c.fd, p, unix.MSG_PEEK)
		if err == unix.EINTR {
			continue
		}
		if !stop() { // ctx ended: the socket is (being) shut down
			return 0, ctx.Err()
		}
		switch {
		case err != nil:
			return 0, c.opError("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p.
func (c *Conn) Write(p []byte) (int, error) {
	if !c.begin() {
		return 0, c.opError("write", net.ErrClosed)
	}
	defer c.end()
	c.busy[1].Store(c.armed[1].Load() + 1)
	defer c.busy[1].Store(0)
	done := 0
	for done < len(p) {
		n, err := unix.Write(c.fd, p[done:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, c.opError("write", err)
		}
		done += n
	}
	return done, nil
}

// Close shuts the socket down, which ends reads blocked in other goroutines,
// and closes it once they have returned.
func (c *Conn) Close() error {
	for {
		s := c.state.Load()
		if s&closedBit != 0 {
			return nil
		}
		if c.state.CompareAndSwap(s, s|closedBit) {
			c.shutdown()
			if s == 0 {
				c.closeFD()
			}
			return nil
		}
	}
}

func (c *Conn) LocalAddr() net.Addr  { return c.laddr }
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

// SetDeadline sets both deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// arm sets (d > 0) or clears the timer that ends a call of direction opt
// still in progress when its deadline passes.
func (c *Conn) arm(opt int, d time.Duration) {
	i := 0
	if opt == unix.SO_SNDTIMEO {
		i = 1
	}
	c.timerMu.Lock()
	defer c.timerMu.Unlock()
	if c.timers[i] != nil {
		c.timers[i].Stop()
		c.timers[i] = nil
	}
	gen := c.armed[i].Add(1)
	if d > 0 {
		c.timers[i] = time.AfterFunc(d, func() {
			// A call that began before this deadline was set ignores it
			// (SO_RCVTIMEO, SO_SNDTIMEO bound later calls): end it.
			if b := c.busy[i].Load(); b != 0 && b-1 < gen {
				c.expired.Store(true)
				c.shutdown()
			}
		})
	}
}

// SetReadDeadline: zero clears it; a future time bounds each later read; a
// past time interrupts I/O in progress and ends the connection.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.deadline(unix.SO_RCVTIMEO, t) }

// SetWriteDeadline is SetReadDeadline for writes.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.deadline(unix.SO_SNDTIMEO, t) }

func (c *Conn) deadline(opt int, t time.Time) error {
	if !c.begin() {
		return net.ErrClosed
	}
	defer c.end()
	var d time.Duration
	if !t.IsZero() {
		d = time.Until(t)
		if d <= 0 {
			c.expired.Store(true)
			c.shutdown()
			return nil
		}
		if d < time.Microsecond {
			d = time.Microsecond
		}
	}
	c.arm(opt, d)
	tv := unix.NsecToTimeval(d.Nanoseconds())
	return os.NewSyscallError("setsockopt", unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, opt, &tv))
}
