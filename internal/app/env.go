package app

import "github.com/rightsize/rightsize/internal/app/run"

// Env is the process state the CLI may use, injected by main (run.Env).
type Env = run.Env

// Recorder records a session's results in the history catalog
// (run.Recorder).
type Recorder = run.Recorder
