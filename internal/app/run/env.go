package run

import (
	"context"
	"io"
	"io/fs"
	"time"

	"github.com/rightsize/rightsize/internal/app/observers"
	"github.com/rightsize/rightsize/internal/result"
)

// Env is the process state the CLI may use, injected by main; a run from
// the command line uses all but Args.
type Env struct {
	Args           []string
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// CPUTime returns the process's user and system CPU time so far; nil when
	// it cannot be measured.
	CPUTime func() (user, sys time.Duration)
	// Terminal is true when Stderr is a terminal (progress bars animate).
	Terminal bool
	Hostname string
	// Brief makes runs and sweeps print one line per step instead of the
	// live lines and each step's summary (quickstart; the files hold all).
	Brief    bool
	NumCPU   int
	MaxProcs int
	// SetMaxProcs sets GOMAXPROCS (nil: left alone).
	SetMaxProcs func(n int)
	// ProcRoot is where the host's /proc is mounted, for host metrics ("":
	// none are sampled).
	ProcRoot string
	// SysFS is the host's /sys, for its CPU and NUMA topology (nil: not
	// available).
	SysFS fs.FS
}

// Out is where the observers write for env.
func (env *Env) Out() observers.Out {
	return observers.Out{Stdout: env.Stdout, Stderr: env.Stderr, Terminal: env.Terminal, Brief: env.Brief}
}

// Recorder records a session's results, and its sweep, in the history
// catalog at dsn, and says so on env's output.
type Recorder func(ctx context.Context, env *Env, dsn string, runs []*result.Run, paths []string, sw *result.Sweep, swPath string) error
