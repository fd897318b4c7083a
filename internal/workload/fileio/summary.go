package fileio

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// Hooks: the storage figures.
func (w *Workload) Hooks() workload.Hooks { return workload.Hooks{Summarize: w.Summarize} }

// Summarize adds the storage figures to a finished run: per direction IOPS,
// MB/s and MiB/s and latency, the CPU per I/O, and with --vms and
// --capacity the per-VM and per-GB figures of one volume; as its section
// ("fileio" in the result file, see Figures) and as the generic figures
// reports render. It reads only the result (ops, client CPU, the instances'
// engine notes) and the options.
func (w *Workload) Summarize(r *result.Run) error {
	rec, p, readPct, err := w.ran(r)
	if err != nil {
		return err
	}
	bs := p.Block
	f := &Figures{
		Pattern: p.String(), BlockBytes: bs, Random: rec.Random, Direct: rec.Direct,
		ReadPct: readPct,
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
	if rec.VMs > 0 || rec.Capacity > 0 {
		volumes := float64(max(len(r.Instances), 1))
		d := Derive(f.Total.IOPS/volumes, f.Total.MBps/volumes, rec.VMs, rec.Capacity)
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
	return result.ReadSection[Figures]("fileio", section)
}

// ran returns the options r ran with: those it records (Recorded), over
// the workload's own for what it does not record; its pattern, and the read
// percentage of its one mix (a step records its own; a list's first).
func (w *Workload) ran(r *result.Run) (Recorded, Pattern, int, error) {
	o := w.opt
	if err := o.Validate(); err != nil {
		return Recorded{}, Pattern{}, 0, err
	}
	rec := o.recorded()
	if err := workload.ReadOptions(r.Options, &rec); err != nil {
		return rec, Pattern{}, 0, fmt.Errorf("fileio: %w", err)
	}
	var errs []error
	p, err := ParsePattern(rec.Pattern)
	if err != nil {
		errs = append(errs, err)
	}
	mixes, err := ParseReadMix(string(rec.Read))
	if err != nil {
		errs = append(errs, fmt.Errorf("read: %w", err))
	}
	if rec.VMs < 0 || rec.Capacity < 0 {
		errs = append(errs, fmt.Errorf("vms %d, capacity %d: want 0 or more", rec.VMs, rec.Capacity))
	}
	if err := errors.Join(errs...); err != nil {
		return rec, p, 0, err
	}
	return rec, p, mixes[0], nil
}
