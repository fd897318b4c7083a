// Package testenv gives integration tests in any package a fresh, uniquely
// named database on the real PostgreSQL and MySQL/MariaDB servers, dropped
// when the test ends, and private servers (servers.go: PostgreSQL and MariaDB
// started from the installed binaries with the settings a test needs, such
// as pg_stat_statements or performance_schema, which the shared servers
// must never be made to take).
//
// It is test support: it reads the process environment (RIGHTSIZE_TEST_POSTGRES,
// RIGHTSIZE_TEST_MYSQL, CI), which production packages never do. A server
// that cannot be reached skips the test, except when CI=true, where a missing
// server is a failure.
package testenv
