package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// TestCheckpointWhileRunningRemovedAfterResult: while a run goes on its
// checkpoint is a readable partial result of this process, at most about a
// second old; once the result is written it is gone, and no temporary file
// is left.
func TestCheckpointWhileRunningRemovedAfterResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	cp := out + ".partial"
	done := make(chan outcome, 1)
	go func() {
		done <- run(t, context.Background(), "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
			"--prepare", "always", "--table-size", "1000", "--threads", "2", "--warmup", "1s", "--time", "4s", "--report-interval", "200ms",
			"--out", out, "--no-history")
	}()
	var seen []*result.Run
	var o outcome
wait:
	for {
		select {
		case o = <-done:
			break wait
		case <-time.After(150 * time.Millisecond):
		}
		if r, err := readResult(cp); err == nil {
			if n := len(seen); n == 0 || !r.Checkpoint.Written.Equal(seen[n-1].Checkpoint.Written) {
				seen = append(seen, r)
			}
			// Compact (one line and its newline), unlike the result.
			if b, err := os.ReadFile(cp); err == nil && bytes.Count(b, []byte("\n")) > 1 {
				t.Errorf("the checkpoint is %d lines, want one: compact JSON", bytes.Count(b, []byte("\n")))
			}
		}
	}
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if len(seen) < 2 {
		t.Fatalf("%d checkpoints seen during a 5 s run, want several", len(seen))
	}
	for i, r := range seen {
		if !r.Partial || !r.Summary.Partial || !strings.HasPrefix(r.PartialReason, session.CheckpointReason) {
			t.Errorf("checkpoint %d: partial %v, reason %q", i, r.Partial, r.PartialReason)
		}
		c := r.Checkpoint
		if c == nil || c.PID != os.Getpid() || c.Result != out || r.ID == "" || r.Workload != "oltp_point_select" || r.SchemaVersion != result.SchemaVersion {
			t.Errorf("checkpoint %d: %+v, id %q, workload %q", i, c, r.ID, r.Workload)
		}
		if len(r.Intervals) == 0 || len(r.Instances) != 1 || r.Instances[0].Target == "" {
			t.Errorf("checkpoint %d: %d intervals, instances %+v", i, len(r.Intervals), r.Instances)
		}
	}
	// Intervals of 200 ms, checkpoints at most once a second by the ticks'
	// nominal times: a late tick's checkpoint may be written closer to the
	// next, so count them rather than measure the gaps (5 s of run, at most
	// 5 plus the first and a catch-up).
	if len(seen) > 7 {
		t.Errorf("%d checkpoints in a 5 s run, want at most about one a second", len(seen))
	}
	last := seen[len(seen)-1]
	if last.Summary.Count == 0 || last.Summary.DurationS == 0 || last.Summary.Throughput == 0 {
		t.Errorf("the last checkpoint measured nothing: %+v", last.Summary)
	}
	if _, err := os.Stat(cp); !os.IsNotExist(err) {
		t.Errorf("the checkpoint is still there after the result was written: %v", err)
	}
	r := mustReadResult(t, out)
	if b, err := os.ReadFile(out); err != nil || bytes.Count(b, []byte("\n")) < 100 {
		t.Errorf("the result is not indented: %d lines (%v)", bytes.Count(b, []byte("\n")), err)
	}
	if r.Partial || r.Checkpoint != nil || len(r.Ops) < 2 {
		t.Errorf("result: partial %v, checkpoint %+v, %d ops", r.Partial, r.Checkpoint, len(r.Ops))
	}
	noTempFiles(t, dir)
}

// noTempFiles fails if a writer's temporary file is left in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func writeCheckpoint(t *testing.T, path, id string, c *result.Checkpoint) {
	t.Helper()
	r := &result.Run{SchemaVersion: result.SchemaVersion, ID: id, Workload: "oltp_read_write", Partial: true,
		PartialReason: session.CheckpointReason, Load: result.Load{DurationS: 60}, Summary: result.Summary{DurationS: 12.04}, Checkpoint: c}
	if err := session.WriteResult(path, r); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptedRunReported: the next run reports each stale checkpoint in
// its output directory in one line and keeps the file; a checkpoint of a
// live process or of another host is not reported; one at the path the run
// is about to write to is renamed, not overwritten.
func TestInterruptedRunReported(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	dead := deadPID(t)
	stale := filepath.Join(dir, "old.json.partial")
	writeCheckpoint(t, stale, "20260101T000000Z-aaaaaa", &result.Checkpoint{PID: dead, Hostname: host, Result: filepath.Join(dir, "old.json")})
	live := filepath.Join(dir, "live.json.partial")
	writeCheckpoint(t, live, "20260101T000000Z-bbbbbb", &result.Checkpoint{PID: os.Getppid(), Hostname: host})
	other := filepath.Join(dir, "other.json.partial")
	writeCheckpoint(t, other, "20260101T000000Z-cccccc", &result.Checkpoint{PID: dead, Hostname: "another-host"})
	mine := filepath.Join(dir, "new.json.partial") // where this run's checkpoint goes
	writeCheckpoint(t, mine, "20260101T000000Z-dddddd", &result.Checkpoint{PID: dead, Hostname: host})
	junk := filepath.Join(dir, "junk.partial")
	if err := os.WriteFile(junk, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}

	o := runOn(t, "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(t.TempDir(), "db.sqlite"),
		"--prepare", "always", "--table-size", "500", "--time", "1s", "--out", filepath.Join(dir, "new.json"), "--no-history")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	want := "rightsize: an earlier run was interrupted: 20260101T000000Z-aaaaaa oltp_read_write, checkpoint " + stale + " (measured 12 s of 60 s)\n"
	if !strings.Contains(o.stderr, want) {
		t.Errorf("stderr lacks\n%s:\n%s", want, o.stderr)
	}
	aside := filepath.Join(dir, "new-20260101T000000Z-dddddd.json.partial")
	if !strings.Contains(o.stderr, "20260101T000000Z-dddddd oltp_read_write, checkpoint "+aside+" ") {
		t.Errorf("the checkpoint at this run's path was not reported under its new name %s:\n%s", aside, o.stderr)
	}
	for _, id := range []string{"bbbbbb", "cccccc"} {
		if strings.Contains(o.stderr, id) {
			t.Errorf("a run that may still be going (%s) was reported:\n%s", id, o.stderr)
		}
	}
	if !strings.Contains(o.stderr, junk+": not a readable checkpoint") {
		t.Errorf("the unreadable checkpoint was not named:\n%s", o.stderr)
	}
	if n := strings.Count(o.stderr, "an earlier run was interrupted"); n != 2 {
		t.Errorf("%d interrupted runs reported, want 2", n)
	}
	for _, p := range []string{stale, live, other, aside, junk} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was not kept: %v", p, err)
		}
	}
	if r, err := readResult(aside); err != nil || r.ID != "20260101T000000Z-dddddd" {
		t.Errorf("the renamed checkpoint: %v, %v", r, err)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("this run's checkpoint was left behind: %v", err)
	}
	// --out -: no checkpoint, and nothing to look at.
	o = runOn(t, "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(t.TempDir(), "db.sqlite"),
		"--prepare", "always", "--table-size", "500", "--time", "1s", "--out", "-", "--no-history")
	if o.code != ExitOK || strings.Contains(o.stderr, "interrupted") {
		t.Errorf("--out -: exit %d\n%s", o.code, o.stderr)
	}
}

// runOn is run with the host name main would give.
func runOn(t *testing.T, args ...string) outcome {
	t.Helper()
	host, _ := os.Hostname()
	var out, errb strings.Builder
	env := Env{
		Args: args, Stdout: &out, Stderr: &errb, Hostname: host,
		Getenv:   func(string) string { return "" },
		CPUTime:  func() (time.Duration, time.Duration) { return time.Second, time.Second },
		ProcRoot: "/proc",
	}
	code := Main(context.Background(), env)
	return outcome{code, out.String(), errb.String()}
}
