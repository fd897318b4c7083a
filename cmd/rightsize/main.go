// Command rightsize benchmarks database workloads on real servers and storage.
// main is the only place that touches the process: it hands arguments, the
// environment, stdio, a CPU clock and signal-driven cancellation to cli.Main
// and exits with the code it returns.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/rightsize/rightsize/internal/cli"
)

// sigs receives SIGINT and SIGTERM from the earliest moment the program
// runs: before signal.Notify, a SIGTERM kills the process outright.
var sigs = make(chan os.Signal, 2)

func init() { signal.Notify(sigs, os.Interrupt, syscall.SIGTERM) }

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		sig := <-sigs
		cancel(cli.Interrupt{Signal: sig, Received: time.Now()})
		// A second signal while the result is being written ends the process.
		sig = <-sigs
		fmt.Fprintf(os.Stderr, "rightsize: received %v again; exiting without waiting\n", sig)
		os.Exit(cli.ExitInterrupted)
	}()
	host, _ := os.Hostname()
	code := cli.Main(ctx, cli.Env{
		Args:        os.Args[1:],
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Getenv:      os.Getenv,
		CPUTime:     cpuTime,
		Terminal:    term.IsTerminal(int(os.Stderr.Fd())),
		Hostname:    host,
		NumCPU:      runtime.NumCPU(),
		MaxProcs:    runtime.GOMAXPROCS(0),
		SetMaxProcs: func(n int) { runtime.GOMAXPROCS(n) },
		ProcRoot:    "/proc",
		SysFS:       os.DirFS("/sys"),
	})
	os.Exit(code)
}

// cpuTime returns this process's user and system CPU time.
func cpuTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
