package noop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

func TestParseTarget(t *testing.T) {
	w := New()
	for _, ok := range []string{"", "noop"} {
		if _, err := w.ParseTarget(ok, workload.TargetOptions{}); err != nil {
			t.Errorf("ParseTarget(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"sqlite:x.db", "postgres://u@h/db", "noop:x"} {
		if _, err := w.ParseTarget(bad, workload.TargetOptions{}); err == nil {
			t.Errorf("ParseTarget(%q) accepted a target", bad)
		}
	}
}

// TestRun drives the workload through the runner, as run does: every event
// succeeds, and two virtual users complete many events in a short window.
func TestRun(t *testing.T) {
	w := New()
	in := testenv.Open(t, w, "")
	if w.Meta().Prepare {
		t.Error("noop asks to be prepared")
	}
	cfg := runner.Settings{
		Load:     runner.Load{Threads: 2, Duration: 300 * time.Millisecond},
		Interval: 100 * time.Millisecond,
		Ops:      w.Meta().Ops,
		Event:    w.Meta().Event,
		Unit:     w.Meta().Event + "s",
		Seed:     1,
	}
	res, err := runner.Run(context.Background(), cfg, []runner.Opened{{NewVU: in.NewVU, Classify: in.Classify}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Errors != 0 || s.Count < 1000 {
		t.Errorf("noop: %d events, %d errors in 300 ms; want at least 1000 and none", s.Count, s.Errors)
	}
	if s.Throughput <= 0 {
		t.Errorf("throughput %v", s.Throughput)
	}
}

// A target given to noop is refused without quoting its password.
func TestParseTargetHidesPassword(t *testing.T) {
	for _, raw := range []string{"postgres://u:secretpw@127.0.0.1/x", "mysql://root:secretpw@h/db", "host=h password=secretpw"} {
		_, err := New().ParseTarget(raw, workload.TargetOptions{})
		if err == nil || strings.Contains(err.Error(), "secretpw") || !strings.Contains(err.Error(), "takes no --target") {
			t.Errorf("ParseTarget(%q) = %v, want a refusal without the password", raw, err)
		}
	}
}
