// Package dialecttest is the conformance suite every dialect runs against a
// real database, so that workloads can rely on the same behaviour from each:
// row counts, transactions, bulk load, error classes.
//
// A dialect's own test calls Run (or RunWith, to supply the server-specific
// hooks for killing a session and sleeping in a query) with the URL of a fresh,
// empty database, typically from internal/testenv.
package dialecttest
