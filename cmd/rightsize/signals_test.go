package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the test holds the database's write lock itself

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// The binary is built once for the tests that run it (TestMain removes it).
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "rightsize-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "rightsize")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is a running rightsize.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr testenv.SyncBuffer
	started        time.Time
	done           chan struct{} // closed at exit
	exitedAt       time.Time
	code           int
}

// start runs the binary with its own history catalog in dir.
func start(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	return startEnv(t, dir, nil, args...)
}

// startEnv is start with more environment variables (NAME=value).
func startEnv(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary(t), args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.Env = append(append(os.Environ(), "RIGHTSIZE_HISTORY=sqlite:"+filepath.Join(dir, "history.db")), env...)
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.exitedAt = time.Now()
		p.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -1
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits up to limit for the exit; false if the process is still running.
func (p *proc) wait(limit time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(limit):
		return false
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// progress counts the progress lines printed so far: all, and measured ones.
func progress(stdout string) (all, measured int) {
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "[") && strings.Contains(l, "tps:") {
			all++
			if !strings.Contains(l, "warmup") {
				measured++
			}
		}
	}
	return all, measured
}

// waitProgress waits until the process printed n measured progress lines.
func waitProgress(t *testing.T, p *proc, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, m := progress(p.stdout.String()); m >= n {
			return
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("no %d measured progress lines (exit %v):\n%s\n%s", n, p.exited(), p.stdout.String(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func decodeFile(path string) (*result.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return result.Decode(f)
}

// leftovers lists temporary files and checkpoints in dir.
func leftovers(dir string) []string {
	var out []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") || strings.HasSuffix(e.Name(), ".partial") {
			out = append(out, e.Name())
		}
	}
	return out
}

// phaseAt names what the process was doing from what it had printed.
func phaseAt(stdout, stderr string) string {
	all, measured := progress(stdout)
	switch {
	case strings.Contains(stdout, "result: "):
		return "recording"
	case strings.Contains(stdout, "\noltp_read_write: "): // the summary's first line
		return "writing"
	case measured > 0:
		return "measuring"
	case all > 0:
		return "warm-up"
	case strings.Contains(stdout, "rightsize "):
		return "connecting"
	case strings.Contains(stderr, "preparing"):
		return "prepare"
	}
	return "starting"
}

// TestSIGTERMAtRandomMoments sends SIGTERM at a random moment of a short
// run, spread over its whole life (start, prepare, warm-up, measured window,
// writing and recording the result), 20 times (RIGHTSIZE_SIGTERMS=n to
// change; 5 with -short), then twice as the result is being written. Every
// time the process exits within 10 s; with
// code 3, or with 0 only when the measured window had already ended (the
// result is then complete). Whenever the runner had started (a progress line
// was printed), there is a valid result; every result of an exit 3 is marked
// partial, with the signal as its reason; no checkpoint or temporary file is
// left.
func TestSIGTERMAtRandomMoments(t *testing.T) {
	if os.Getenv("RIGHTSIZE_FAULTS") != "1" {
		// Timing-bound (exit codes by the moment of the signal, the
		// checkpoint's age): missed while other heavy tests shared the 2
		// cores, so .ci/run runs it alone, after them.
		t.Skip("runs with RIGHTSIZE_FAULTS=1 (.ci/run runs it alone after the other tests)")
	}
	n := 20
	if testing.Short() {
		n = 5
	}
	if v := os.Getenv("RIGHTSIZE_SIGTERMS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("RIGHTSIZE_SIGTERMS=%q: want a positive count", v)
		}
	}
	args := func(dir string) []string {
		return []string{"run", "oltp_read_write", "--target", "sqlite:" + filepath.Join(dir, "db.sqlite"), "--prepare", "always",
			"--table-size", "2000", "--threads", "2", "--warmup", "1s", "--time", "2s", "--report-interval", "250ms",
			"--out", filepath.Join(dir, "r.json")}
	}
	// One undisturbed run measures the span the signals are spread over.
	dir := t.TempDir()
	p := start(t, dir, args(dir)...)
	if !p.wait(60*time.Second) || p.code != 0 {
		t.Fatalf("undisturbed run: exit %d\n%s", p.code, p.stderr.String())
	}
	span := p.exitedAt.Sub(p.started)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 8))
	t.Logf("an undisturbed run takes %v; %d signals, seed %d", span.Round(time.Millisecond), n, seed)

	phases := map[string]int{}
	for i := range n + 2 {
		dir := t.TempDir()
		out := filepath.Join(dir, "r.json")
		p := start(t, dir, args(dir)...)
		var delay time.Duration
		if i < n {
			// Stratified: signal i falls in the i-th n-th of the span (a
			// little past its end for the last ones).
			delay = time.Duration((float64(i) + rng.Float64()) / float64(n) * 1.05 * float64(span))
			time.Sleep(time.Until(p.started.Add(delay)))
		} else {
			// Two more aimed at the writing of the result: as soon as the
			// summary's first line is out.
			for !strings.Contains(p.stdout.String(), "\noltp_read_write: ") && !p.exited() {
				time.Sleep(time.Millisecond)
			}
			delay = time.Since(p.started)
		}
		stdout, stderr := p.stdout.String(), p.stderr.String()
		sentAt := time.Now()
		sigErr := p.cmd.Process.Signal(syscall.SIGTERM)
		phase := phaseAt(stdout, stderr)
		if sigErr != nil {
			phase = "exited"
		}
		phases[phase]++
		if !p.wait(10 * time.Second) {
			t.Fatalf("#%d (%s, %v): still running 10 s after SIGTERM\n%s", i, phase, delay, p.stdout.String())
		}
		took := p.exitedAt.Sub(sentAt)
		errText := p.stderr.String()
		r, rerr := decodeFile(out)
		what := "no result"
		switch {
		case rerr == nil && r.Partial:
			what = fmt.Sprintf("partial result, %g s of %g s measured, %d transactions", r.Summary.DurationS, r.Load.DurationS, r.Summary.Count)
		case rerr == nil:
			what = fmt.Sprintf("complete result, %d transactions", r.Summary.Count)
		case !os.IsNotExist(rerr):
			what = "unreadable result: " + rerr.Error()
		}
		t.Logf("#%2d SIGTERM at %5.2f s (%-10s): exit %d after %6.3f s; %s", i, delay.Seconds(), phase, p.code, took.Seconds(), what)

		if strings.Contains(errText, "panic") {
			t.Errorf("#%d: panic:\n%s", i, errText)
		}
		if rerr != nil && !os.IsNotExist(rerr) {
			t.Errorf("#%d: the result is not valid: %v", i, rerr)
		}
		switch p.code {
		case cli.ExitOK:
			// Only a run whose measured window had ended may succeed.
			if rerr != nil || r.Partial || r.Summary.Partial || r.Summary.DurationS != r.Load.DurationS {
				t.Errorf("#%d: exit 0 without a complete result (%v)", i, rerr)
			} else if end := r.Started.Add(time.Duration((r.Load.WarmupS + r.Load.DurationS) * float64(time.Second))); sentAt.Before(end.Add(-100 * time.Millisecond)) {
				t.Errorf("#%d: exit 0 for a SIGTERM %v before the window's end", i, end.Sub(sentAt))
			}
		case cli.ExitInterrupted:
			if !strings.Contains(errText, "terminated") {
				t.Errorf("#%d: stderr does not name the signal:\n%s", i, errText)
			}
			if _, all := progress(p.stdout.String()); rerr != nil && (all > 0 || strings.Contains(p.stdout.String(), "tps:")) {
				t.Errorf("#%d: the runner had started (progress lines) but there is no result", i)
			}
			if rerr == nil && (!r.Partial || !r.Summary.Partial || !strings.Contains(r.PartialReason, "terminated") || r.Checkpoint != nil) {
				t.Errorf("#%d: exit 3 with a result not marked partial by the signal: partial %v, reason %q", i, r.Partial, r.PartialReason)
			}
			if rerr == nil && r.Summary.DurationS > r.Load.DurationS {
				t.Errorf("#%d: %g s measured of %g", i, r.Summary.DurationS, r.Load.DurationS)
			}
		default:
			// A signal in the process's first milliseconds, before the Go
			// runtime has run main's init (signal.Notify), kills it as the
			// kernel's default action: nothing had started, nothing is lost.
			if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM &&
				p.stdout.String() == "" && errText == "" && os.IsNotExist(rerr) {
				t.Logf("#%d: killed by the SIGTERM before its handler was installed (%v after the start): no output, no result", i, delay)
				break
			}
			t.Errorf("#%d: exit %d, want %d or %d\n%s", i, p.code, cli.ExitOK, cli.ExitInterrupted, errText)
		}
		if rerr == nil && !strings.Contains(p.stdout.String(), "history: 1 run recorded") {
			t.Errorf("#%d: the run was not recorded in the history:\n%s", i, p.stdout.String())
		}
		if l := leftovers(dir); len(l) > 0 {
			t.Errorf("#%d: left behind: %v", i, l)
		}
	}
	t.Logf("signals by phase: %v", phases)
}

// TestSecondSIGINTExitsAtOnce: while the first SIGINT's orderly stop waits
// for events in flight (the test holds SQLite's write lock, so the virtual
// users' writes wait up to the 5 s busy timeout, and --grace lets them), a
// second SIGINT ends the process within a second, with code 3.
func TestSecondSIGINTExitsAtOnce(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "db.sqlite")
	p := start(t, dir, "run", "oltp_read_write", "--target", "sqlite:"+dbPath, "--prepare", "always",
		"--table-size", "1000", "--threads", "4", "--time", "60s", "--grace", "30s", "--out", filepath.Join(dir, "r.json"))
	waitProgress(t, p, 1)

	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(20000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	time.Sleep(300 * time.Millisecond) // every virtual user now waits for the lock

	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if p.wait(300 * time.Millisecond) {
		t.Fatalf("the first SIGINT ended the run at once (exit %d): nothing was waiting\n%s", p.code, p.stderr.String())
	}
	second := time.Now()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if !p.wait(time.Second) {
		t.Fatalf("still running 1 s after the second SIGINT\n%s", p.stderr.String())
	}
	took := p.exitedAt.Sub(second)
	t.Logf("exit %d %v after the second SIGINT", p.code, took.Round(time.Millisecond))
	if p.code != cli.ExitInterrupted {
		t.Errorf("exit %d, want %d", p.code, cli.ExitInterrupted)
	}
	if !strings.Contains(p.stderr.String(), "received interrupt again; exiting without waiting") {
		t.Errorf("stderr:\n%s", p.stderr.String())
	}
	// The orderly stop did not finish: the checkpoint is what is left.
	if r, err := decodeFile(filepath.Join(dir, "r.json.partial")); err != nil || !strings.HasPrefix(r.PartialReason, cli.CheckpointReason) {
		t.Errorf("checkpoint after the second SIGINT: %v", err)
	}
}

// TestSIGKILLLeavesACheckpoint kills runs outright in the measured window,
// three times at random moments: each leaves its checkpoint, readable and
// marked partial. Its last interval ended at most one report interval (plus
// 300 ms to write it) before the kill whenever the run's ticker was on time
// (its progress lines appeared within 300 ms of their intervals' ends); and
// in any case it holds every interval the run had reported at least 500 ms
// before the kill (a starved machine delays the ticks themselves, which no
// checkpoint can be fresher than). The next start reports the interrupted
// runs in one line each and keeps the files.
func TestSIGKILLLeavesACheckpoint(t *testing.T) {
	if os.Getenv("RIGHTSIZE_FAULTS") != "1" {
		// Timing-bound (exit codes by the moment of the signal, the
		// checkpoint's age): missed while other heavy tests shared the 2
		// cores, so .ci/run runs it alone, after them.
		t.Skip("runs with RIGHTSIZE_FAULTS=1 (.ci/run runs it alone after the other tests)")
	}
	const interval = time.Second
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "db.sqlite")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	type killed struct {
		path string
		r    *result.Run
	}
	var runs []killed
	for i := range 3 {
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		prepare := "never"
		if i == 0 {
			prepare = "always"
		}
		p := start(t, dir, "run", "oltp_read_write", "--target", "sqlite:"+dbPath, "--prepare", prepare,
			"--table-size", "1000", "--threads", "2", "--warmup", "1s", "--time", "60s", "--report-interval", interval.String(),
			"--out", out)
		// Watch the progress lines (seen[k]: when interval k's appeared)
		// until 2+i measured ones, then a random part of an interval more.
		var seen []time.Time
		var killAt time.Time
		deadline := time.Now().Add(60 * time.Second)
		for killAt.IsZero() || time.Now().Before(killAt) {
			all, measured := progress(p.stdout.String())
			for len(seen) < all {
				seen = append(seen, time.Now())
			}
			if killAt.IsZero() && measured >= 2+i {
				killAt = time.Now().Add(time.Duration(rng.Float64() * float64(interval)))
			}
			if p.exited() || time.Now().After(deadline) {
				t.Fatalf("#%d: no %d measured progress lines:\n%s\n%s", i, 2+i, p.stdout.String(), p.stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		killAt = time.Now()
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if !p.wait(5 * time.Second) {
			t.Fatal("SIGKILL did not end the process")
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("#%d: a result after SIGKILL? %v", i, err)
		}
		cp := out + ".partial"
		r, err := decodeFile(cp)
		if err != nil {
			t.Fatalf("#%d: checkpoint: %v", i, err)
		}
		if !r.Partial || !r.Summary.Partial || !strings.HasPrefix(r.PartialReason, cli.CheckpointReason) {
			t.Errorf("#%d: partial %v, reason %q", i, r.Partial, r.PartialReason)
		}
		if c := r.Checkpoint; c == nil || c.PID != p.cmd.Process.Pid || c.Result != out {
			t.Errorf("#%d: checkpoint %+v, want pid %d, result %s", i, c, p.cmd.Process.Pid, out)
		}
		if len(r.Intervals) == 0 {
			t.Fatalf("#%d: no intervals", i)
		}
		at := func(k int) time.Time { // interval k's nominal end
			return r.Started.Add(time.Duration(r.Intervals[k].EndS * float64(time.Second)))
		}
		last := r.Intervals[len(r.Intervals)-1]
		age := killAt.Sub(at(len(r.Intervals) - 1))
		var lateness time.Duration // of the progress lines of the intervals in the checkpoint
		for k := 0; k < len(seen) && k < len(r.Intervals); k++ {
			lateness = max(lateness, seen[k].Sub(at(k)))
		}
		t.Logf("#%d: killed %v after the checkpoint's last interval ended (%d intervals, %d reported; ticker up to %v late; %d transactions over %g s)",
			i, age.Round(time.Millisecond), len(r.Intervals), len(seen), lateness.Round(time.Millisecond), r.Summary.Count, r.Summary.DurationS)
		if age < 0 || (lateness <= 300*time.Millisecond && age > interval+300*time.Millisecond) {
			t.Errorf("#%d: checkpoint %v old at the kill with the ticker on time, want at most one interval (%v) and the time to write it", i, age, interval)
		}
		for k, when := range seen {
			if k >= len(r.Intervals) && killAt.Sub(when) >= 500*time.Millisecond {
				t.Errorf("#%d: interval %d was reported %v before the kill but is not in the checkpoint", i, k, killAt.Sub(when).Round(time.Millisecond))
			}
		}
		if r.Summary.Count == 0 || math.Abs(r.Summary.DurationS-(last.EndS-r.Load.WarmupS)) > 1e-6 {
			t.Errorf("#%d: summary %d transactions over %g s, last interval ends at %g s", i, r.Summary.Count, r.Summary.DurationS, last.EndS)
		}
		if len(r.Ops) < 2 || r.Ops[1].Histogram == "" {
			t.Errorf("#%d: the checkpoint's ops: %d", i, len(r.Ops))
		}
		runs = append(runs, killed{cp, r})
	}

	p := start(t, dir, "run", "oltp_point_select", "--target", "sqlite:"+dbPath, "--prepare", "never", "--table-size", "1000", "--time", "1s",
		"--out", filepath.Join(dir, "next.json"))
	if !p.wait(30*time.Second) || p.code != 0 {
		t.Fatalf("next run: exit %d\n%s", p.code, p.stderr.String())
	}
	stderr := p.stderr.String()
	for _, k := range runs {
		want := fmt.Sprintf("rightsize: an earlier run was interrupted: %s oltp_read_write, checkpoint %s (measured %s s of 60 s)\n",
			k.r.ID, k.path, strconv.FormatFloat(math.Round(k.r.Summary.DurationS*10)/10, 'f', -1, 64))
		if !strings.Contains(stderr, want) {
			t.Errorf("the next start did not report\n%s in:\n%s", want, stderr)
		}
		if _, err := os.Stat(k.path); err != nil {
			t.Errorf("the checkpoint was not kept: %v", err)
		}
	}
	if n := strings.Count(stderr, "an earlier run was interrupted"); n != len(runs) {
		t.Errorf("%d interrupted runs reported, want %d:\n%s", n, len(runs), stderr)
	}
}
