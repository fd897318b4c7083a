package report

import (
	"strings"
	"testing"

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
