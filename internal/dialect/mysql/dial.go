package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/dialect/blockio"
)

// A MySQL or MariaDB server speaks first: it sends its greeting (the
// initial handshake packet, or an error packet when it refuses the client)
// as soon as it accepts a connection. A PostgreSQL server, like many
// others, waits for the client's first message and then closes the
// connection after its authentication_timeout (60 s), which the driver
// reports as "invalid connection". So dial waits for the greeting itself,
// within the connect timeout, and says what it saw.

// dial connects to addr and waits, within ctx, until the server has sent
// its first bytes, which it checks look like a MySQL greeting (without
// consuming them: the driver reads the greeting).
func dial(ctx context.Context, network, addr string) (*blockio.Conn, error) {
	nc, err := blockio.DialConn(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	// A packet header (3 bytes of length, a sequence number 0) and its
	// first byte: protocol version 10 (a handshake) or 0xff (an error).
	var first [5]byte
	n, err := nc.Peek(ctx, first[:])
	switch {
	case err == nil && n == len(first) && (first[3] != 0 || first[4] != 10 && first[4] != 0xff):
		err = &protocolError{addr: addr, what: "what it sent first is not a MySQL greeting (is this MySQL's port? MySQL and MariaDB listen on 3306)"}
	case err == nil:
		return nc, nil // a greeting, or the start of one: the driver reads it
	case errors.Is(err, io.EOF):
		err = &protocolError{addr: addr, what: "it closed the connection without a greeting"}
	case errors.Is(err, context.DeadlineExceeded):
		err = &noGreetingError{addr: addr, err: err}
	}
	nc.Close()
	return nil, err
}

// protocolError is a server that answered, but not as a MySQL server does.
type protocolError struct {
	addr, what string
}

func (e *protocolError) Error() string {
	return fmt.Sprintf("the server at %s does not speak MySQL's protocol: %s", e.addr, e.what)
}

// noGreetingError is a server that sent nothing before the context ended;
// connectErr says how long that was.
type noGreetingError struct {
	addr string
	err  error // the context's
}

func (e *noGreetingError) Error() string {
	return fmt.Sprintf("the server at %s sent no greeting: %v", e.addr, e.err)
}

func (e *noGreetingError) Unwrap() error { return e.err }

// connectErr is the error of a connection attempt to cfg's server that
// failed with err: when the attempt's context (cctx, bounded by the connect
// timeout) expired while the caller's (ctx) had not, one message that says
// how long it waited, and for what; otherwise err. The chain keeps err and
// context.DeadlineExceeded, for Classify.
func connectErr(ctx, cctx context.Context, err error, cfg *mysql.Config, timeout time.Duration) error {
	if ctx.Err() != nil || !errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return err
	}
	var ng *noGreetingError
	if errors.As(err, &ng) {
		if cfg.Timeout > 0 && cfg.Timeout < timeout {
			timeout = cfg.Timeout // the URL's timeout= bounds dialling and the greeting
		}
		return &timeoutError{err: err, msg: fmt.Sprintf(
			"the server at %s sent no greeting within the connect timeout (%v): it does not speak MySQL's protocol, or is too slow to answer "+
				"(a MySQL server greets a client at once; a PostgreSQL server waits for the client to speak first: if it is PostgreSQL, use postgres://)",
			cfg.Addr, timeout)}
	}
	var pe *protocolError
	if errors.As(err, &pe) {
		return err
	}
	msg := fmt.Sprintf("the server at %s did not complete the connection within the connect timeout (%v)", cfg.Addr, timeout)
	if err.Error() != context.DeadlineExceeded.Error() {
		msg += ": " + err.Error()
	}
	return &timeoutError{err: err, msg: msg}
}

// timeoutError is a connection attempt that ran out of time.
type timeoutError struct {
	msg string
	err error
}

func (e *timeoutError) Error() string   { return e.msg }
func (e *timeoutError) Unwrap() []error { return []error{e.err, context.DeadlineExceeded} }
