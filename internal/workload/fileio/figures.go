package fileio

import (
	"fmt"
	"math"

	"github.com/rightsize/rightsize/internal/result"
)

// Figures is what a fileio run reports beyond the generic summary, the seed
// studies' per-volume figures for one pattern at one read mix: the result's
// "fileio" section (result.Run.Section), which scripts read
// ("fileio": {"total": {"iops": ...}}).
type Figures struct {
	Pattern    string `json:"pattern"` // canonical "t1 o32 b16k"
	BlockBytes int64  `json:"block_bytes"`
	ReadPct    int    `json:"read_pct"`
	Random     bool   `json:"random"`
	Direct     bool   `json:"direct"`
	Engine     string `json:"engine"` // "io_uring" or "psync"
	// Read, Write and Total are per direction over the measured window, all
	// instances (volumes) added up.
	Read  IOFigures `json:"read"`
	Write IOFigures `json:"write"`
	Total IOFigures `json:"total"`
	// CPUPerIOUs is the rightsize process's CPU (user + sys) per I/O, to
	// compare with fio's usr_cpu/sys_cpu.
	CPUPerIOUs float64 `json:"cpu_per_io_us,omitempty"`
	// Derived holds the per-VM and per-GB figures (--vms, --capacity), per
	// volume: the totals divided by the number of volumes first.
	Derived *Derived `json:"derived,omitempty"`
}

// IOFigures are one direction's throughput and latency.
type IOFigures struct {
	Count   int64          `json:"count"`
	IOPS    float64        `json:"iops"`
	MBps    float64        `json:"mb_s"`  // 10^6 bytes per second
	MiBps   float64        `json:"mib_s"` // 2^20 bytes per second
	Latency result.Latency `json:"latency"`
}

// generic returns the figures as reports render them, for volumes volumes:
// one column of the seed studies' table (headed by the read mix, so that a
// command's read mixes are set side by side), its rows the totals, the
// latency of each direction, the per-VM and per-GB figures and the CPU per
// I/O. IOPS stands for the run in a listing.
func (f *Figures) generic(volumes int) *result.Figures {
	scope := "one volume"
	if volumes > 1 {
		scope = fmt.Sprintf("%d volumes added up (per VM and per GB: per volume)", volumes)
	}
	random, direct := "sequential", "buffered I/O"
	if f.Random {
		random = "random"
	}
	if f.Direct {
		direct = "direct I/O"
	}
	g := &result.Figures{
		Title:   fmt.Sprintf("%s, %s, %s, engine %s, %s", f.Pattern, random, direct, f.Engine, scope),
		Column:  fmt.Sprintf("%d%% read", f.ReadPct),
		Primary: "IOPS",
	}
	add := func(name string, v float64, unit string, decimals int) {
		g.Headline = append(g.Headline, result.Figure{Name: name, Value: v, Unit: unit, Decimals: decimals})
	}
	// Every step lists the same figures, in the table's order, so that a
	// command's steps line up: one that does not apply to this step (the
	// write latency of a step that only read, the per-VM figures without
	// --vms) is null, and a row no step has a value for is left out.
	na := math.NaN()
	or := func(ok bool, v float64) float64 {
		if ok {
			return v
		}
		return na
	}
	var d Derived
	if f.Derived != nil {
		d = *f.Derived
	}
	reads, writes := f.Read.Count > 0, f.Write.Count > 0
	add("IOPS", f.Total.IOPS, "", 0)
	add("MB/s", f.Total.MBps, "", 1)
	add("MiB/s", f.Total.MiBps, "", 1)
	add("read avg", or(reads, f.Read.Latency.AvgMs), "ms", 3)
	add("read p99", or(reads, f.Read.Latency.P99Ms), "ms", 3)
	add("write avg", or(writes, f.Write.Latency.AvgMs), "ms", 3)
	add("write p99", or(writes, f.Write.Latency.P99Ms), "ms", 3)
	add("IOPS per VM", or(d.IOPSPerVM != 0, d.IOPSPerVM), "", 0)
	add("MB/s per VM", or(d.MBpsPerVM != 0, d.MBpsPerVM), "", 1)
	add("IOPS per GB", or(d.IOPSPerGB != 0, d.IOPSPerGB), "", 1)
	add("CPU µs per I/O", or(f.CPUPerIOUs > 0, f.CPUPerIOUs), "", 1)
	return g
}
