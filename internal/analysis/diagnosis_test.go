package analysis

import (
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// TestBottleneckOfLimits: each limit is named from the figures that say
// it, a limit the guest's figures do not show before what they show.
func TestBottleneckOfLimits(t *testing.T) {
	ready := 25.0
	cases := []struct {
		name string
		h    *result.Host
		want Limit
	}{
		{"cpu", &result.Host{CPUs: 2, RunQueue: 9, CPU: result.CPUPct{User: 80, System: 15}}, CPUBound},
		{"iowait", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 10, Iowait: 60}}, StorageBound},
		{"disk", &result.Host{CPUs: 2, Disks: []result.Disk{{Name: "a", UtilPct: 10}, {Name: "b", UtilPct: 95}}}, StorageBound},
		{"elsewhere", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 30, System: 10}}, Elsewhere},
		{"hypervisor", &result.Host{CPUs: 2, CPU: result.CPUPct{User: 95}, Hypervisor: &result.Hypervisor{ReadyPct: &ready}}, HeldBack},
		{"cgroup", &result.Host{CPUs: 2, Cgroups: []result.Cgroup{{Role: "database", Path: "/x", ThrottledPct: ThrottledPct}}}, HeldBack},
		{"generator's cgroup", &result.Host{CPUs: 2, Cgroups: []result.Cgroup{{Role: "rightsize", Path: "/x", ThrottledPct: 90}}}, Elsewhere},
	}
	for _, c := range cases {
		b := BottleneckOf(c.h, true)
		if b.Limit != c.want {
			t.Errorf("%s: %s, want %s", c.name, b.Limit, c.want)
		}
	}
	if b := BottleneckOf(cases[0].h, true); !b.Queued || b.BusyPct != 95 {
		t.Errorf("cpu: queued %v, busy %g", b.Queued, b.BusyPct)
	}
	if b := BottleneckOf(cases[2].h, true); b.Disk == nil || b.Disk.Name != "b" {
		t.Errorf("busiest disk %+v", b.Disk)
	}
	if BottleneckOf(nil, true) != nil {
		t.Error("a bottleneck without figures")
	}
}

// TestDiagnoseLocates: the bottleneck is read at the knee, past a
// sustained knee where the system fell behind, and at the first step of a
// sweep past its limit; conflicts, drops and lag are listed by step.
func TestDiagnoseLocates(t *testing.T) {
	host := func(busy float64) *result.Host { return &result.Host{CPUs: 2, CPU: result.CPUPct{User: busy}} }
	sw := &result.Sweep{Axis: "rate", BaselineRate: 400, HostIsServer: true, Steps: []result.SweepStep{
		{Label: "rate 1x", X: 1, Throughput: 400, P99Ms: 24, Offered: 400, Host: host(67)},
		{Label: "rate 2x", X: 2, Throughput: 566, P99Ms: 3553, Offered: 800, Host: host(94), Dropped: 5, Retries: 9},
		{Label: "rate 3x", X: 3, Throughput: 585, P99Ms: 6682, Offered: 1200, Host: host(95), TickerLag: &result.TickerLag{Ticks: 10, MaxS: 0.1}}}}
	d := Analyze(sw, OptionsOf(sw)).Diagnosis
	if d.Limit.Where != PastKnee || d.Limit.Step != 1 || d.Limit.Bottleneck == nil || d.Limit.Bottleneck.Limit != CPUBound {
		t.Errorf("limit %+v", d.Limit)
	}
	if len(d.Overloaded) != 1 || d.Overloaded[0] != 1 || len(d.Conflicts) != 1 || len(d.Lagged) != 1 || d.Lagged[0] != 2 || d.GuestOnly == nil {
		t.Errorf("cautions %+v", d)
	}
	sw.Steps[0].Throughput = 200 // behind its schedule from the first step
	if d := Analyze(sw, OptionsOf(sw)).Diagnosis; d.Limit.Where != AtFirstStep || d.Limit.Step != 0 {
		t.Errorf("past the limit: %+v", d.Limit)
	}
	own := &result.Sweep{Axis: "read %", OwnSteps: true, Steps: sw.Steps}
	if d := Analyze(own, OptionsOf(own)).Diagnosis; d.Limit.Step != -1 || len(d.Overloaded) > 0 {
		t.Errorf("own steps: %+v", d)
	}
}
