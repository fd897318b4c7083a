// Package errclass names the classes of failure a benchmark counts separately.
//
// Classification is done by each dialect from structured error codes (SQLSTATE,
// MySQL error numbers, SQLite result codes), never from message text. The runner
// only needs the class to decide what to do next: retry the transaction, reconnect,
// or count and go on.
package errclass

import (
	"context"
	"errors"
)

// Class is one kind of failure. The zero value is None (no error).
type Class uint8

const (
	None          Class = iota // no error
	Serialization              // serialization failure: the transaction may be retried
	Deadlock                   // deadlock detected: the transaction may be retried
	LockTimeout                // a lock wait timed out
	Connection                 // the connection was lost or refused; the VU reconnects
	Constraint                 // a unique / foreign-key / check constraint was violated
	Timeout                    // a statement or client-side timeout
	Canceled                   // the run's context was cancelled (stop, signal)
	Other                      // anything else
	// The classes below cannot heal by retrying or reconnecting: a virtual
	// user that fails to reconnect with one of them ends the run (Heals).
	Auth       // authentication failed (wrong user or password)
	Permission // the user lacks a privilege (permission denied)
	Missing    // the database or an object it needs does not exist
	numClasses
)

// All lists every error class except None, in a stable order (for tables and JSON).
var All = []Class{Serialization, Deadlock, LockTimeout, Connection, Constraint, Timeout, Canceled, Auth, Permission, Missing, Other}

var names = [...]string{"none", "serialization", "deadlock", "lock_timeout", "connection", "constraint", "timeout", "canceled", "other", "auth", "permission", "missing"}

// String returns the class's stable snake_case name, used in JSON and output.
func (c Class) String() string {
	if int(c) < len(names) {
		return names[c]
	}
	return "other"
}

// Parse is the inverse of String.
func Parse(s string) (Class, bool) {
	for i, n := range names {
		if n == s {
			return Class(i), true
		}
	}
	return Other, false
}

// Retryable reports whether a transaction that failed with this class can be
// re-run as is (serialization failures and deadlocks).
func (c Class) Retryable() bool { return c == Serialization || c == Deadlock }

// Heals reports whether an attempt that failed with this class may succeed
// when made again unchanged: false for a failed authentication, a missing
// privilege and a database or object that does not exist, which only the
// user can mend.
func (c Class) Heals() bool { return c != Auth && c != Permission && c != Missing }

// Generic classifies the errors every dialect shares: context cancellation and
// deadlines. It returns None when err is nil and Other when it knows nothing more;
// dialect classifiers call it last.
func Generic(err error) Class {
	switch {
	case err == nil:
		return None
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	}
	return Other
}

// Counts holds one counter per class; the zero value is ready to use. It is not
// safe for concurrent use: each VU keeps its own and they are added up on a tick.
type Counts [numClasses]int64

// Add counts one error of class c.
func (n *Counts) Add(c Class) {
	if c < numClasses {
		n[c]++
	}
}

// Merge adds o into n.
func (n *Counts) Merge(o *Counts) {
	for i := range n {
		n[i] += o[i]
	}
}

// Total is the number of errors of every class (None excluded).
func (n *Counts) Total() int64 {
	var t int64
	for _, c := range All {
		t += n[c]
	}
	return t
}

// Map returns the non-zero counts keyed by class name (for JSON).
func (n *Counts) Map() map[string]int64 {
	m := map[string]int64{}
	for _, c := range All {
		if n[c] != 0 {
			m[c.String()] = n[c]
		}
	}
	return m
}
