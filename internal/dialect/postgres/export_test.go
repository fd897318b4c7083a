package postgres

import "github.com/jackc/pgx/v5/pgconn"

// SetDial replaces how Connect opens its socket until the returned func is
// called.
func SetDial(d pgconn.DialFunc) (restore func()) {
	prev := dial
	dial = d
	return func() { dial = prev }
}
