// Package testenv gives integration tests in any package a fresh, uniquely
// named database on the real PostgreSQL and MySQL/MariaDB servers, dropped
// when the test ends.
//
// It is test support: it reads the process environment (RIGHTSIZE_TEST_POSTGRES,
// RIGHTSIZE_TEST_MYSQL, CI), which production packages never do. A server
// that cannot be reached skips the test, except when CI=true, where a missing
// server is a failure.
package testenv
