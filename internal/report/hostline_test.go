package report

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// TestHostLineShowsPressure: the console's host line names the kernel's
// CPU and I/O pressure where the samples have it, and says nothing of it
// where they do not.
func TestHostLineShowsPressure(t *testing.T) {
	var b strings.Builder
	ew := &errWriter{w: &b}
	h := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 40, Idle: 60}}
	hostLine(ew, h)
	if strings.Contains(b.String(), "pressure") {
		t.Errorf("pressure named without any:\n%s", b.String())
	}
	b.Reset()
	h.Pressure = &result.Pressure{CPUSomePct: 37.5, IOSomePct: 2, IOFullPct: 1}
	hostLine(ew, h)
	if want := "; pressure: CPU some 37.5%, I/O some 2.0% full 1.0%\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("host line %q, want it to end %q", b.String(), want)
	}
}

// TestHostLineShowsCgroups: a cgroup with a limit or throttling is on the
// host line; a throttled one, at analysis.ThrottledPct or more, is a warning
// that names the limit; a cgroup without either is not shown.
func TestHostLineShowsCgroups(t *testing.T) {
	var b strings.Builder
	ew := &errWriter{w: &b}
	h := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 20, Idle: 80}, Cgroups: []result.Cgroup{{Role: "rightsize and database", Path: "/", UsedCPUs: 0.4}}}
	hostLine(ew, h)
	if strings.Contains(b.String(), "cgroup") {
		t.Errorf("an unlimited, unthrottled cgroup shown:\n%s", b.String())
	}
	b.Reset()
	h.Cgroups = append(h.Cgroups, result.Cgroup{Role: "database", Path: "/rs-half", Server: "postgres (PID 7)", LimitCPUs: 0.5, UsedCPUs: 0.49,
		Periods: 10, ThrottledPeriods: 9, ThrottledPct: 90, ThrottledMsPerS: 412})
	hostLine(ew, h)
	want := "the database's cgroup /rs-half (postgres (PID 7)): limit 0.50 CPUs, used 0.49, throttled in 90% of its periods (412 ms/s held back)"
	if got := b.String(); !strings.Contains(got, "; "+want+"\n") || !strings.Contains(got, "warning: "+want+": its CPU limit, not the host's CPUs, held it back") {
		t.Errorf("host line %q, want %q on it and in a warning", got, want)
	}
	b.Reset()
	h.Cgroups[1].ThrottledPct = 20
	hostLine(ew, h)
	if strings.Contains(b.String(), "warning") {
		t.Errorf("warned under %d%% throttled:\n%s", analysis.ThrottledPct, b.String())
	}
}
