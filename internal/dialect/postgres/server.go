package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// serverOf names the server a new connection reached: the product is the
// first word of SELECT version() ("PostgreSQL 15.20 (Debian ...) on
// x86_64-pc-linux-gnu, ..."; a server that speaks the protocol under another
// name says so there), the version the server_version the server reported
// at startup ("15.20 (Debian 15.20-0+deb12u1)"). When the query fails (the
// connection is then about to fail anyway) the product is "PostgreSQL".
func serverOf(ctx context.Context, pc *pgx.Conn) (product, version string) {
	product, version = "PostgreSQL", pc.PgConn().ParameterStatus("server_version")
	var full string
	if err := pc.QueryRow(ctx, "SELECT version()").Scan(&full); err == nil {
		if f := strings.Fields(full); len(f) > 0 {
			product = f[0]
		}
	}
	return product, version
}
