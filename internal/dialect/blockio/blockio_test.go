package blockio

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// pair returns a blocking client Conn connected to a plain server conn on loopback.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	c, err := Dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	if srv == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c.(*Conn), srv
}

func TestRoundTripAndEOF(t *testing.T) {
	c, srv := pair(t)
	go func() {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(srv, buf); err != nil {
			return
		}
		srv.Write(append([]byte("echo:"), buf...))
		srv.Close()
	}()
	if n, err := c.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("write %d %v", n, err)
	}
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "echo:hello" {
		t.Fatalf("read %q %v", got, err)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("read returned no error after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock a blocked Read")
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after close: %v, want net.ErrClosed", err)
	}
}

func TestFutureDeadlineTimesOut(t *testing.T) {
	c, srv := pair(t)
	start := time.Now()
	if err := c.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d < 90*time.Millisecond || d > 2*time.Second {
		t.Errorf("timed out after %v, want about 100 ms", d)
	}
	// Clearing the deadline makes reads block for data again.
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	go srv.Write([]byte("ok"))
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ok" {
		t.Errorf("read after clearing deadline: %q %v", buf, err)
	}
}

func TestPastDeadlineInterruptsBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := c.SetDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("err = %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a past deadline did not interrupt the read")
	}
}

func TestDialRefused(t *testing.T) {
	if _, err := Dial(context.Background(), "tcp", "127.0.0.1:1"); err == nil {
		t.Fatal("dial to a closed port succeeded")
	}
}

// Peek returns what the server sent first without consuming it, and when
// the server says nothing it gives up when its context ends, about then.
func TestPeek(t *testing.T) {
	c, srv := pair(t)
	go srv.Write([]byte("greeting"))
	p := make([]byte, 5)
	n, err := c.Peek(context.Background(), p)
	if err != nil || n == 0 || string(p[:n]) != "greeting"[:n] {
		t.Fatalf("peek %q %v", p[:n], err)
	}
	all := make([]byte, 8)
	if _, err := io.ReadFull(c, all); err != nil || string(all) != "greeting" {
		t.Errorf("read after peek: %q %v", all, err)
	}

	c, _ = pair(t) // a server that says nothing
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	n, err = c.Peek(ctx, p)
	if d := time.Since(start); d < 250*time.Millisecond || d > 2*time.Second {
		t.Errorf("peek at a silent server returned after %v, want about 300 ms", d)
	}
	if n != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("peek at a silent server: %d, %v; want context.DeadlineExceeded", n, err)
	}

	c, srv = pair(t) // a server that hangs up
	srv.Close()
	if n, err := c.Peek(context.Background(), p); n != 0 || err != io.EOF {
		t.Errorf("peek after the server closed: %d, %v; want io.EOF", n, err)
	}
}

// TestFutureDeadlineEndsBlockedRead: a deadline set in the future while a
// read is already blocked ends that read when it passes, as pgx's
// cancellation expects when the server does not answer its cancel request
// (SO_RCVTIMEO bounds only later reads: a capture of a stalled server
// ignored its signal).
func TestFutureDeadlineEndsBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // the read is blocked
	start := time.Now()
	if err := c.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("err = %v, want a deadline exceeded", err)
		}
		if d := time.Since(start); d < 90*time.Millisecond {
			t.Errorf("ended after %v, before its deadline", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the blocked read outlived its deadline by seconds")
	}
}
