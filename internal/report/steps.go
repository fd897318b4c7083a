package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rightsize/rightsize/internal/result"
)

// Steps writes the side-by-side table of a command's steps (fileio's read
// mixes): for storage runs the seed studies' layout, one row per metric and
// one column per step; for others one row per step.
func Steps(w io.Writer, runs []*result.Run) error {
	ew := &errWriter{w: w}
	if len(runs) == 0 {
		return nil
	}
	storage := true
	for _, r := range runs {
		storage = storage && r.FileIO != nil
	}
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	if !storage {
		ew.printf("\nsteps:\n")
		fmt.Fprintf(tw, "step\tthroughput/s\tavg ms\tp95 ms\tp99 ms\terrors\tcpu usr%%\tsys%%\tiowait%%\tsteal%%\trun queue\t\n")
		for _, r := range runs {
			s := r.Summary
			host := "-\t-\t-\t-\t-"
			if h := r.Host; h != nil {
				host = fmt.Sprintf("%.0f\t%.0f\t%.0f\t%.0f\t%d", h.CPU.User, h.CPU.System, h.CPU.Iowait, h.CPU.Steal, h.RunQueue)
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%.3f\t%.3f\t%.3f\t%d\t%s\t\n", r.Label, s.Throughput, s.Latency.AvgMs, s.Latency.P95Ms, s.Latency.P99Ms, s.Errors, host)
		}
		if err := tw.Flush(); err != nil && ew.err == nil {
			ew.err = err
		}
		return ew.err
	}
	f0 := runs[0].FileIO
	scope := "one volume"
	if n := len(runs[0].Instances); n > 1 {
		scope = fmt.Sprintf("%d volumes added up (per VM and per GB: per volume)", n)
	}
	ew.printf("\n%s, %s, %s, engine %s, %s:\n", f0.Pattern, randomWord(f0.Random), directWord(f0.Direct), f0.Engine, scope)
	header := "metric"
	for _, r := range runs {
		header += fmt.Sprintf("\t%d%% read", r.FileIO.ReadPct)
	}
	fmt.Fprintln(tw, header+"\t")
	row := func(name string, val func(f *result.FileIO) (float64, bool), format string) {
		line, any := name, false
		for _, r := range runs {
			v, ok := val(r.FileIO)
			if ok {
				line += "\t" + fmt.Sprintf(format, v)
				any = true
			} else {
				line += "\t-"
			}
		}
		if any {
			fmt.Fprintln(tw, line+"\t")
		}
	}
	has := func(n int64) bool { return n > 0 }
	row("IOPS", func(f *result.FileIO) (float64, bool) { return f.Total.IOPS, true }, "%.0f")
	row("MB/s", func(f *result.FileIO) (float64, bool) { return f.Total.MBps, true }, "%.1f")
	row("MiB/s", func(f *result.FileIO) (float64, bool) { return f.Total.MiBps, true }, "%.1f")
	row("read avg ms", func(f *result.FileIO) (float64, bool) { return f.Read.Latency.AvgMs, has(f.Read.Count) }, "%.3f")
	row("read p99 ms", func(f *result.FileIO) (float64, bool) { return f.Read.Latency.P99Ms, has(f.Read.Count) }, "%.3f")
	row("write avg ms", func(f *result.FileIO) (float64, bool) { return f.Write.Latency.AvgMs, has(f.Write.Count) }, "%.3f")
	row("write p99 ms", func(f *result.FileIO) (float64, bool) { return f.Write.Latency.P99Ms, has(f.Write.Count) }, "%.3f")
	derived := func(get func(d *result.Derived) float64) func(f *result.FileIO) (float64, bool) {
		return func(f *result.FileIO) (float64, bool) {
			if f.Derived == nil || get(f.Derived) == 0 {
				return 0, false
			}
			return get(f.Derived), true
		}
	}
	row("IOPS per VM", derived(func(d *result.Derived) float64 { return d.IOPSPerVM }), "%.0f")
	row("MB/s per VM", derived(func(d *result.Derived) float64 { return d.MBpsPerVM }), "%.1f")
	row("IOPS per GB", derived(func(d *result.Derived) float64 { return d.IOPSPerGB }), "%.1f")
	row("CPU µs per I/O", func(f *result.FileIO) (float64, bool) { return f.CPUPerIOUs, f.CPUPerIOUs > 0 }, "%.1f")
	if err := tw.Flush(); err != nil && ew.err == nil {
		ew.err = err
	}
	return ew.err
}

func randomWord(random bool) string {
	if random {
		return "random"
	}
	return "sequential"
}

func directWord(direct bool) string {
	if direct {
		return "direct I/O"
	}
	return "buffered I/O"
}
