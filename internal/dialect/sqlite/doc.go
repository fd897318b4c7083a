// Package sqlite is the SQLite dialect, through the pure-Go driver
// modernc.org/sqlite, so that rightsize runs a database benchmark with no
// server at all and measures an embedded database as applications use it.
//
// Targets are "sqlite:PATH", "sqlite://PATH" or "sqlite:///abs/path". Every
// connection runs in WAL mode with synchronous=NORMAL and busy_timeout=5000 ms.
// SQLite has one writer at a time: write throughput does not grow with virtual
// users, which Capabilities says so reports can explain flat curves.
package sqlite
