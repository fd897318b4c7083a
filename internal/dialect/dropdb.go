package dialect

import "context"

// Dropper is an optional capability of a Dialect whose databases live on a
// server: dropping a database, which cleanup does for the databases
// prepare created (internal/workload/objects), once they hold nothing else.
type Dropper interface {
	// CountTables counts the tables and views of c's database, outside the
	// server's system schemas, other than the table named except.
	CountTables(ctx context.Context, c Conn, except string) (int64, error)
	// DropDatabase drops t's database over a session to its server that
	// does not use it. PostgreSQL refuses, changing nothing, while another
	// session is connected to that database; MySQL waits for the locks of
	// open transactions on its tables.
	DropDatabase(ctx context.Context, t *Location) error
}

// CountRows runs query, which selects one integer (a COUNT(*)), over c with
// args and returns it: Dropper.CountTables is written with it.
func CountRows(ctx context.Context, c Conn, query string, args ...any) (int64, error) {
	var n int64
	err := c.QueryRow(ctx, query, args, &n)
	return n, err
}
