package fileio

import (
	"encoding/json"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// section reads the fileio section Summarize wrote.
func section(t *testing.T, r *result.Run) *Figures {
	t.Helper()
	f, err := FiguresOf(r.Section)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("no fileio section")
	}
	return f
}

// TestSummarizeReadsTheRecordedOptions: a result summarised by a workload
// with default options (a saved or merged result) gets the figures of the
// options it ran with, which it records.
func TestSummarizeReadsTheRecordedOptions(t *testing.T) {
	ran := New()
	ran.opt.PatternText, ran.opt.Sequential, ran.opt.Buffered, ran.opt.Read = "t2 o8 b8k", true, true, "70"
	ran.opt.VMs, ran.opt.Capacity = 10, "1TB"
	if err := ran.opt.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ran.Options()) // as a result file holds them
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Run{Event: "io", Summary: result.Summary{DurationS: 10},
		Ops: []result.Op{{Name: "io", Count: 1000}, {Name: "read", Count: 700}, {Name: "write", Count: 300}}}
	if err := json.Unmarshal(b, &r.Options); err != nil {
		t.Fatal(err)
	}
	if err := New().Summarize(r); err != nil {
		t.Fatal(err)
	}
	f := section(t, r)
	if f.Pattern != "t2 o8 b8k" || f.BlockBytes != 8192 || f.Random || f.Direct || f.ReadPct != 70 {
		t.Errorf("figures %+v: not the recorded options", f)
	}
	if f.Derived == nil || f.Derived.VMs != 10 || f.Derived.CapacityGB != 1000 || f.Total.IOPS != 100 {
		t.Errorf("derived %+v, IOPS %g", f.Derived, f.Total.IOPS)
	}
}
