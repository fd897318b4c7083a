package serverstats

import (
	"context"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
)

// client reads what a database without a server (SQLite) has its
// connections in this process count (dialect.ClientWaits): the virtual
// users inside a call to the database, and of them those waiting for its
// write lock. It needs no connection of its own.
type client struct {
	product string
	w       *dialect.ClientWaits
}

var _ server = (*client)(nil)

func (c *client) check(context.Context, dialect.Conn) error { return nil }

func (c *client) describe() (source, product string) { return "client", c.product }

func (c *client) hiddenNote() string { return "" }

func (c *client) note() string { return "" }

// sample counts the connections in a call: those waiting for the write
// lock as Lock:database, the others as on CPU (running the database's
// code in this process; its file I/O is not told apart).
func (c *client) sample(_ context.Context, a *activity) error {
	a.samples++
	in, waiting := c.w.InCall.Load(), c.w.Waiting.Load()
	waiting = min(waiting, in)
	if in <= 0 {
		return nil
	}
	a.active += in
	if waiting > 0 {
		a.count(waitKey{typ: "Lock", event: "database"}, waiting)
	}
	if in > waiting {
		a.count(waitKey{typ: "CPU"}, in-waiting)
	}
	return nil
}

// counters are the lock's waits and their time: "client.lock_waits" (the
// write lock taken, BEGIN IMMEDIATE), "client.lock_wait_ms".
func (c *client) counters(context.Context, dialect.Conn) (*snapshot, error) {
	return &snapshot{at: time.Now(), values: map[string]float64{
		"client.lock_waits":   float64(c.w.Waits.Load()),
		"client.lock_wait_ms": float64(c.w.WaitNs.Load()) / 1e6,
	}}, nil
}

func (c *client) missedStatements(map[string]float64, stmtSnapshot, stmtSnapshot) string { return "" }
