package chaos

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// outcome is what one rightsize command did.
type outcome struct {
	code           int
	stdout, stderr string
	took           time.Duration // wall time of cli.Main
}

// procsMu serialises the commands' changes of GOMAXPROCS (cli raises it for
// virtual users doing blocking I/O, as cmd/rightsize lets it).
var procsMu sync.Mutex

// running is a rightsize command running in the background.
type running struct {
	stdout, stderr testenv.SyncBuffer
	begun          time.Time
	done           chan outcome
}

// start runs one command line through cli.Main in the background, with the
// process state cmd/rightsize would give it (no environment: no PG*
// variables, no history catalog unless asked), restoring GOMAXPROCS
// afterwards.
func start(ctx context.Context, args ...string) *running {
	r := &running{begun: time.Now(), done: make(chan outcome, 1)}
	go func() {
		procsMu.Lock()
		defer procsMu.Unlock()
		procs := runtime.GOMAXPROCS(0)
		defer runtime.GOMAXPROCS(procs)
		env := cli.Env{
			Args: args, Stdout: &r.stdout, Stderr: &r.stderr,
			Getenv:      func(string) string { return "" },
			NumCPU:      runtime.NumCPU(),
			MaxProcs:    procs,
			SetMaxProcs: func(n int) { runtime.GOMAXPROCS(n) },
		}
		code := cli.Main(ctx, env)
		r.done <- outcome{code: code, stdout: r.stdout.String(), stderr: r.stderr.String(), took: time.Since(r.begun)}
	}()
	return r
}

// wait returns the command's outcome once it has ended.
func (r *running) wait() outcome {
	o := <-r.done
	r.done <- o
	return o
}

// clockStarted waits for the run's first progress line and returns when its
// measured clock started (the line's time less one report interval), or
// fails the test if the command ends first or within limit.
func (r *running) clockStarted(t testing.TB, interval, limit time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if strings.Contains(r.stdout.String(), " thds: ") {
			return time.Now().Add(-interval)
		}
		select {
		case o := <-r.done:
			r.done <- o
			t.Fatalf("the command ended before its first report: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no progress line within %v:\n%s\n%s", limit, r.stdout.String(), r.stderr.String())
	return time.Time{}
}

// rightsize runs one command line and returns its outcome.
func rightsize(ctx context.Context, args ...string) outcome { return start(ctx, args...).wait() }

// mustRun runs a command that must succeed.
func mustRun(t testing.TB, args ...string) outcome {
	t.Helper()
	o := rightsize(context.Background(), args...)
	if o.code != cli.ExitOK {
		t.Fatalf("rightsize %s: exit %d\n%s\n%s", strings.Join(args, " "), o.code, o.stdout, o.stderr)
	}
	t.Logf("rightsize %s %s: %v", args[0], args[1], o.took.Round(time.Millisecond))
	return o
}

func readResult(t testing.TB, path string) *result.Run {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := result.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// resultFile is a result path in the test's temporary directory.
func resultFile(t testing.TB) string { return filepath.Join(t.TempDir(), "r.json") }

// scaled returns the CI figure, or the issue's own with -chaos.full.
func scaled[T any](ci, issue T) T {
	if *full {
		return issue
	}
	return ci
}

// offset is the time of t from the run's start, in seconds.
func offset(r *result.Run, t time.Time) float64 { return t.Sub(r.Started).Seconds() }

// measured returns the measured intervals.
func measured(r *result.Run) []result.Interval {
	var out []result.Interval
	for _, iv := range r.Intervals {
		if iv.Phase == "measure" {
			out = append(out, iv)
		}
	}
	return out
}

// tickSlack is how much later than its nominal end an interval's last
// events may have completed: an interval holds the events its tick found,
// and a tick fires a little late (more than an interval late only when the
// result reports ticker_lag), so one interval, plus the worst reported lag.
func tickSlack(r *result.Run) float64 {
	s := r.Load.IntervalS
	if r.TickerLag != nil {
		s += r.TickerLag.MaxS
	}
	return s
}

// span returns an interval's start and end, seconds from the run's start.
func span(iv result.Interval) (from, to float64) { return iv.EndS - iv.DurationS, iv.EndS }

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// checkMeasuredTime asserts the measured window lasted want within tol (the
// summary's duration, and the measured intervals end to end), and that the
// run ended at most tail after the window's end (its own start to its end;
// the tail is the grace period of the events in flight at the end, and the
// time to compute the figures).
func checkMeasuredTime(t *testing.T, r *result.Run, want, tol, tail time.Duration) {
	t.Helper()
	if d := r.Summary.DurationS; math.Abs(d-want.Seconds()) > tol.Seconds() {
		t.Errorf("measured %.2f s, want %v ± %v", d, want, tol)
	}
	var sum float64
	for _, iv := range measured(r) {
		sum += iv.DurationS
	}
	if math.Abs(sum-want.Seconds()) > tol.Seconds() {
		t.Errorf("the measured intervals add up to %.2f s, want %v ± %v", sum, want, tol)
	}
	if wall := r.Ended.Sub(r.Started); wall < want-tol || wall > want+tail {
		t.Errorf("the run lasted %v from its start to its end, want %v - %v to %v + %v", wall, want, tol, want, tail)
	}
}

// complete asserts the result is not partial.
func complete(t *testing.T, r *result.Run) {
	t.Helper()
	if r.Partial || r.Summary.Partial {
		t.Errorf("result partial: %q", r.PartialReason)
	}
	if r.Summary.Count == 0 || len(r.Ops) == 0 || len(r.Instances) != 1 {
		t.Errorf("result incomplete: count %d, %d ops, %d instances", r.Summary.Count, len(r.Ops), len(r.Instances))
	}
}

// logf logs a line prefixed with the elapsed time since base.
func logf(t testing.TB, base time.Time, format string, args ...any) {
	t.Helper()
	t.Logf("[%6.2fs] "+format, append([]any{time.Since(base).Seconds()}, args...)...)
}

// intervalsTable renders the measured series for a failure message or log.
func intervalsTable(r *result.Run) string {
	var b strings.Builder
	b.WriteString("   from     to   events  VUs   errors   retries  reconn  by class\n")
	for _, iv := range r.Intervals {
		from, to := span(iv)
		b.WriteString(strings.TrimRight(
			fmt.Sprintf("%7.2f %6.2f %8d %4d %8d %9d %7d  %v", from, to, iv.Events, iv.ActiveVUs, iv.Errors, iv.Retries, iv.Reconnects, iv.ErrorsByClass), " ") + "\n")
	}
	return b.String()
}
