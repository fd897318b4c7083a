// Package postgres is the PostgreSQL dialect: it speaks to the server through
// pgx's native interface (one *pgx.Conn per virtual user, no database/sql pool
// in between) so that the client spends as little CPU per query as possible,
// and it maps everything that differs between databases (placeholders, bulk
// load by COPY, SQLSTATE error classes, TLS reporting) behind dialect.Dialect.
//
// Targets are libpq-style URLs (postgres:// or postgresql://). The libpq
// environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE,
// PGPASSFILE, PGSSLMODE and the rest pgconn knows) are read only through the
// getenv function handed to ParseTarget, never from the process environment
// directly; see ParseTarget for how pgconn's own environment lookup is masked.
package postgres
