package app

import "github.com/rightsize/rightsize/internal/app/run"

// Record records a run's or sweep's results in the history catalog, and
// says so on env.Stdout (run.Record).
var Record = run.Record
