package tpcc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/hist"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

// Summarize adds TPC-C's figures (clause 5.4: tpmC; the mix of 5.2.3; the
// response-time limits of 5.2.5.3) to a finished run, for the whole run and
// for each instance: its section ("tpcc" in the result file, see Figures)
// and the generic figures reports render. It reads only the result (ops
// and their histograms, counters, load, options), so it also works on a
// saved or merged file; the options are taken from r.Options when present.
func (w *Workload) Summarize(r *result.Run) error {
	o := w.opt
	if err := workload.ReadOptions(r.Options, &o); err != nil {
		return fmt.Errorf("tpcc: %w", err)
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("tpcc: options in the result: %w", err)
	}
	instances := max(len(r.Instances), 1)
	f, err := figures(r.Summary, r.Ops, r.Load, r.Load.Threads*instances, instances, &o)
	if err != nil {
		return err
	}
	// The whole server's counters (MySQL's) may hold every instance's
	// failed calls: each instance's then leaves out all of them.
	all := failedIn(r.Summary)
	if len(r.Instances) > 0 {
		all = failedCalls{}
		for _, in := range r.Instances {
			all = all.add(failedIn(in.Summary))
		}
	}
	var note string
	f.ServerTPM, _, note = serverTPM(r.ServerStats, all)
	f.ServerNOPM = serverNOPM(r.ServerStats)
	var instanceNOPM float64
	sections := make([]json.RawMessage, len(r.Instances))
	each := make([]*Figures, len(r.Instances))
	var instanceTPM float64
	var instanceNotes []string
	for i, in := range r.Instances {
		if each[i], err = figures(in.Summary, in.Ops, r.Load, r.Load.Threads, 1, &o); err != nil {
			return err
		}
		failed := failedIn(in.Summary)
		if _, _, global, _ := serverTx(in.ServerStats); global {
			failed = all
		}
		tpm, global, n := serverTPM(in.ServerStats, failed)
		each[i].ServerTPM = tpm
		if n != "" {
			each[i].Notes = append(each[i].Notes, n)
			instanceNotes = append(instanceNotes, fmt.Sprintf("instance %d: %s", i+1, n))
		}
		each[i].ServerNOPM = serverNOPM(in.ServerStats)
		instanceNOPM += each[i].ServerNOPM
		if global {
			instanceTPM = max(instanceTPM, tpm)
		} else {
			instanceTPM += tpm
		}
		if sections[i], err = json.Marshal(each[i]); err != nil {
			return fmt.Errorf("tpcc: %w", err)
		}
	}
	switch {
	case r.ServerStats != nil:
		if note != "" {
			f.Notes = append(f.Notes, note)
		}
	default: // several instances: the run's figure is theirs
		f.ServerTPM = instanceTPM
		f.Notes = append(f.Notes, instanceNotes...)
	}
	if f.ServerNOPM == 0 {
		f.ServerNOPM = instanceNOPM
	}
	section, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("tpcc: %w", err)
	}
	r.Section, r.Figures = section, f.generic(len(r.Instances))
	for i := range r.Instances {
		r.Instances[i].Section, r.Instances[i].Figures = sections[i], each[i].headline()
	}
	return nil
}

// FiguresOf reads TPC-C's section of a result or of an instance
// (result.Run.Section, result.InstancePart.Section); nil when there is none.
func FiguresOf(section json.RawMessage) (*Figures, error) {
	return result.ReadSection[Figures]("tpcc", section)
}

// Ceiling returns the most tpmC `terminals` terminals can reach when every
// response is instant: each cycles through keying, response and think time,
// so a terminal completes 60 / E[keying + think] transactions a minute, of
// which the New-Order share counts. With the spec's times (scale 1), the
// 45/43/4/4/4 mix and 10 terminals per warehouse it is 12.86 per warehouse.
// It is 0 when there is no keying or think time.
func Ceiling(terminals int, scale float64, weights [numTx]float64) float64 {
	cycle := meanCycle(scale, weights)
	if cycle <= 0 {
		return 0
	}
	return 60 * float64(terminals) * weights[newOrder] / 100 / cycle
}

// meanCycle is a terminal's mean keying plus think time per transaction,
// in seconds, at that scale and mix.
func meanCycle(scale float64, weights [numTx]float64) float64 {
	var cycle float64
	for t := range numTx {
		cycle += weights[t] / 100 * (txDefs[t].keying + txDefs[t].think)
	}
	return cycle * scale
}

func pct(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// figures computes the TPC-C section from one summary and its ops, for
// instances instances of o.Warehouses warehouses each.
func figures(s result.Summary, ops []result.Op, load result.Load, terminals, instances int, o *Options) (*Figures, error) {
	f := &Figures{Warehouses: o.Warehouses, Terminals: terminals, ThinkScale: o.ThinkScale, InServer: o.InServer}
	byName := map[string]*result.Op{}
	for i := range ops {
		byName[ops[i].Name] = &ops[i]
	}
	count := func(t txType) int64 {
		if op := byName[txDefs[t].name]; op != nil {
			return op.Count
		}
		return 0
	}
	var total int64
	for t := range numTx {
		total += count(t)
	}
	mins := s.DurationS / 60
	c := s.Counters
	if mins > 0 {
		f.TpmC = float64(count(newOrder)) / mins
		f.NOPM = float64(count(newOrder)-c[counterNames[cntRollback]]) / mins
		f.TPM = float64(total) / mins
	}
	open := load.Mode == "open"
	switch {
	case open:
		f.Notes = append(f.Notes, "open loop: the arrival rate sets the throughput, so efficiency against the terminals' ceiling is not computed; per-transaction response times count from the intended start, queueing included")
	case o.ThinkScale == 0:
		f.Notes = append(f.Notes, "no keying or think time (--think-scale 0): a throughput test; efficiency against 12.86 tpmC per warehouse is not meaningful")
	default:
		f.CeilingTpmC = Ceiling(terminals, o.ThinkScale, o.weights)
		if f.CeilingTpmC > 0 {
			f.EfficiencyPct = 100 * f.TpmC / f.CeilingTpmC
		}
		if f.EfficiencyPct > 100 {
			// More New-Orders than the terminals' mean cycle allows: a window
			// of few cycles counts the first ones, which terminals that
			// started together run bunched (keying and think times are drawn
			// per cycle, so the means hold only over many).
			f.Notes = append(f.Notes, fmt.Sprintf("efficiency above 100%%: the measured %gs hold about %.0f of a terminal's %.1f s cycles (keying and think time), too few for their means to hold; measure longer, and warm up for a cycle or more, for a steady figure",
				s.DurationS, s.DurationS/meanCycle(o.ThinkScale, o.weights), meanCycle(o.ThinkScale, o.weights)))
		}
		if full := 10 * o.Warehouses * instances; terminals != full || o.ThinkScale != 1 {
			f.Notes = append(f.Notes, fmt.Sprintf("efficiency is against the ceiling of %d terminals at think scale %g (%.4g tpmC); the spec's 12.86 tpmC per warehouse assumes 10 terminals per warehouse at scale 1",
				terminals, o.ThinkScale, f.CeilingTpmC))
		}
	}
	for t := range numTx {
		d := txDefs[t]
		m := Mix{Name: d.name, Count: count(t), Pct: pct(count(t), total), MinPct: d.minPct}
		// Each terminal deals within two transactions of every share (see
		// deck): a shortfall smaller than that is the dealing's granularity.
		m.OK = total == 0 || float64(m.Count)+2*float64(terminals) >= d.minPct/100*float64(total)
		f.Mix = append(f.Mix, m)
	}
	if low := o.belowMinimum(); len(low) > 0 {
		f.Notes = append(f.Notes, "--weights below the spec's minimum mix (clause 5.2.3): "+strings.Join(low, ", "))
	}
	f.RollbackPct = pct(c[counterNames[cntRollback]], count(newOrder))
	f.RemoteOrderLinePct = pct(c[counterNames[cntRemoteLines]], c[counterNames[cntOrderLines]])
	f.RemotePaymentPct = pct(c[counterNames[cntRemotePayments]], count(payment))
	f.PaymentByNamePct = pct(c[counterNames[cntPaymentByName]], count(payment))
	f.OrderStatusByNamePct = pct(c[counterNames[cntStatusByName]], count(orderStatus))
	for t := range numTx {
		d := txDefs[t]
		lim := Limit{Name: d.name, LimitMs: d.p90Limit * 1000, OK: true}
		if op := byName[d.name]; op != nil && op.Histogram != "" && op.Count > 0 {
			h, err := hist.FromSnapshot(op.Histogram)
			if err != nil {
				return nil, fmt.Errorf("tpcc: %s histogram: %w", d.name, err)
			}
			lim.P90Ms = result.Ms(h.Quantile(0.90))
			lim.OK = lim.P90Ms <= lim.LimitMs
		}
		f.Limits = append(f.Limits, lim)
	}
	f.Notes = append(f.Notes, "Delivery runs inline (not deferred): its response time is the whole business transaction, held to the 5 s limit of the deferred queueing")
	return f, nil
}
