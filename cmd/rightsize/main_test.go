package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/result"
)

// TestSIGTERMWritesPartialResult runs the real binary, sends it SIGTERM in
// the middle of the measured window and checks the result file.
func TestSIGTERMWritesPartialResult(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rightsize")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "r.json")
	cmd := exec.Command(bin, "run", "oltp_read_write", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "1000", "--threads", "2", "--warmup", "1s", "--time", "60s", "--out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own history catalog, not the tester's.
	cmd.Env = append(os.Environ(), "RIGHTSIZE_HISTORY=sqlite:"+filepath.Join(dir, "history.db"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for two measured progress lines, then signal.
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(stdout.String(), "tps:")-strings.Count(stdout.String(), "warmup") < 2 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no progress lines:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("exit: %v, want code %d\n%s", err, cli.ExitInterrupted, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := result.Decode(f)
	if err != nil {
		t.Fatalf("result is not valid: %v", err)
	}
	if !r.Partial || !r.Summary.Partial || !strings.Contains(r.PartialReason, "terminated") {
		t.Errorf("partial = %v, reason %q", r.Partial, r.PartialReason)
	}
	if r.Summary.Count == 0 || r.Summary.DurationS < 1 || r.Summary.DurationS > 30 {
		t.Errorf("count %d over %v s", r.Summary.Count, r.Summary.DurationS)
	}
	// The partial run is in the history too.
	if !strings.Contains(stdout.String(), "history: 1 run recorded") {
		t.Errorf("the interrupted run was not recorded in the history:\n%s", stdout.String()[max(0, stdout.Len()-500):])
	}
}
