package session

import (
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// TestCheckpointerOncePerSecond drives the checkpointer with ticks 100 ms
// apart: it takes a snapshot once a second of the ticks' times, not at
// every tick, and writes the newest.
func TestCheckpointerOncePerSecond(t *testing.T) {
	dir := t.TempDir()
	c := newCheckpointer(filepath.Join(dir, "r.json"), "h", 100*time.Millisecond, func(*result.Run) {}, nil)
	var takes atomic.Int64
	take := func() (*result.Run, error) {
		n := takes.Add(1)
		return &result.Run{SchemaVersion: result.SchemaVersion, ID: strconv.FormatInt(n, 10)}, nil
	}
	start := time.Now()
	for i := 0; i <= 25; i++ {
		c.snapshot(start.Add(time.Duration(i)*100*time.Millisecond), take)
	}
	if n := takes.Load(); n != 3 {
		t.Errorf("%d checkpoints over 2.5 s of 100 ms ticks, want 3 (at 0, 1 and 2 s)", n)
	}
	if kept := c.stop(false); kept != filepath.Join(dir, "r.json.partial") {
		t.Errorf("stop(false) kept %q", kept)
	}
	if r, err := ReadResult(filepath.Join(dir, "r.json.partial")); err != nil || r.Checkpoint == nil || r.ID != "3" {
		t.Errorf("the kept checkpoint: %v, %+v, want the third", err, r)
	}
	if newCheckpointer("-", "h", time.Second, nil, nil) != nil {
		t.Error("a checkpointer for --out -")
	}
}
