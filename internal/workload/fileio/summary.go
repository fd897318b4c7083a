package fileio

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

var _ workload.Summarizer = (*Workload)(nil)

// Summarize adds the storage figures to a finished run: per direction IOPS,
// MB/s and MiB/s and latency, the CPU per I/O, and with --vms and
// --capacity the per-VM and per-GB figures of one volume; as its section
// ("fileio" in the result file, see Figures) and as the generic figures
// reports render. It reads only the result (ops, client CPU, the instances'
// engine notes) and the options.
func (w *Workload) Summarize(r *result.Run) error {
	o := w.opt
	o.fromMap(r.Options)
	if err := o.Validate(); err != nil {
		return err
	}
	bs := o.pattern.Block
	f := &Figures{
		Pattern: o.pattern.String(), BlockBytes: bs, Random: o.random, Direct: !o.Buffered,
		ReadPct: readPctOf(r, o),
	}
	secs := r.Summary.DurationS
	fig := func(op *result.Op) IOFigures {
		if op == nil || secs <= 0 {
			return IOFigures{}
		}
		iops := float64(op.Count) / secs
		return IOFigures{
			Count: op.Count, IOPS: iops, Latency: op.Latency,
			MBps: iops * float64(bs) / 1e6, MiBps: iops * float64(bs) / (1 << 20),
		}
	}
	for i := range r.Ops {
		switch r.Ops[i].Name {
		case "read":
			f.Read = fig(&r.Ops[i])
		case "write":
			f.Write = fig(&r.Ops[i])
		case r.Event:
			f.Total = fig(&r.Ops[i])
		}
	}
	for _, in := range r.Instances {
		for _, n := range in.Notes {
			if e, ok := strings.CutPrefix(n, "engine "); ok && !strings.Contains(e, " ") {
				f.Engine = e
			}
		}
	}
	if r.Client != nil {
		f.CPUPerIOUs = r.Client.CPUPerEventUs
	}
	if o.VMs > 0 || o.capacity > 0 {
		volumes := float64(max(len(r.Instances), 1))
		d := Derive(f.Total.IOPS/volumes, f.Total.MBps/volumes, o.VMs, o.capacity)
		f.Derived = &d
	}
	section, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("fileio: %w", err)
	}
	r.Section, r.Figures = section, f.generic(len(r.Instances))
	return nil
}

// FiguresOf reads fileio's section of a result (result.Run.Section); nil
// when there is none.
func FiguresOf(section json.RawMessage) (*Figures, error) {
	if len(section) == 0 {
		return nil, nil
	}
	var f Figures
	if err := json.Unmarshal(section, &f); err != nil {
		return nil, fmt.Errorf("fileio: the result's fileio section: %w", err)
	}
	return &f, nil
}

// fromMap reads the options a result recorded (Options; JSON numbers are
// float64), so that a saved or merged result is summarised with the options
// it ran with.
func (o *Options) fromMap(m map[string]any) {
	num := func(k string) (int64, bool) {
		switch v := m[k].(type) {
		case int:
			return int64(v), true
		case int64:
			return v, true
		case float64:
			return int64(v), true
		}
		return 0, false
	}
	if v, ok := m["pattern"].(string); ok {
		o.PatternText, o.NumJobs, o.IODepth, o.BS = v, 0, 0, ""
	}
	if v, ok := m["random"].(bool); ok {
		o.Random, o.Sequential, o.RW = v, !v, ""
	}
	if v, ok := m["direct"].(bool); ok {
		o.Buffered = !v
	}
	if v, ok := m["read"]; ok {
		o.Read = fmt.Sprint(v)
	}
	if v, ok := num("vms"); ok {
		o.VMs = int(v)
	}
	if v, ok := num("capacity"); ok {
		o.Capacity = strconv.FormatInt(v, 10) + "b"
	}
	if v, ok := num("size"); ok && v > 0 {
		o.Size = strconv.FormatInt(v, 10)
	}
}

// readPctOf is the read percentage the run used: the options' "read" entry
// when it holds one mix (the CLI records each step's).
func readPctOf(r *result.Run, o Options) int {
	if v, ok := r.Options["read"]; ok {
		var pct int
		if _, err := fmt.Sscan(fmt.Sprint(v), &pct); err == nil {
			return pct
		}
	}
	return o.mixes[0]
}
