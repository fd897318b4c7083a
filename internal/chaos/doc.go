// Package chaos holds rightsize's fault-injection tests (issue 8, parts 1 to
// 3): runs through the command line (cli.Main) against private PostgreSQL and
// MariaDB servers that the tests start, restart and stop themselves, and
// through a TCP proxy that passes, stalls or cuts the traffic. They prove that
// a run survives server restarts, stalls, dropped connections and
// serialization or deadlock storms with every event accounted for: measured
// time kept, errors reported by class, retries apart from final failures, no
// lost transaction counted as a success and no transaction left open.
//
// The package has no code of its own, only tests. Its servers are private so
// that restarting them never disturbs the shared servers other tests use:
// one PostgreSQL cluster and one MariaDB server per test binary, started on
// first use on free loopback ports in a temporary directory, each test with
// its own database. Under CI=true a server that cannot be started is a test
// failure; elsewhere the tests skip (as package testenv does).
//
// The figures are scaled to fit CI on two cores (each test's comment says
// how); go test -run . ./internal/chaos -chaos.full runs the issue's own
// figures (60 s runs, a 20 s stall, cuts every 10 s).
package chaos
