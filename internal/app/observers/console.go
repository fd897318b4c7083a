package observers

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
)

// console is what a run or sweep shows: a header before each step, the
// live line every interval, the summary and where the result went, the
// steps table and a sweep's verdict; the session's messages on stdout,
// its warnings on stderr.
type console struct {
	out  Out
	plan *runplan.Plan
	unit string // the live line's rate unit
	// summaryFailed: the last summary could not be printed (stdout
	// closed), so where its result went is told on stderr.
	summaryFailed bool
}

var _ session.Observer = (*console)(nil)

// NewConsole is what a run or sweep of p shows on out.
func NewConsole(out Out, p *runplan.Plan) session.Observer {
	unit := "tps"
	if e := p.Workload.Meta().Event; e != "transaction" {
		unit = e + "/s"
	}
	return &console{out: out, plan: p, unit: unit}
}

func (c *console) Begin(*session.Outcome) error { return nil }

func (c *console) Preparing(i int, target string) {
	fmt.Fprintf(c.out.Stderr, "preparing %s (instance %d)...\n", target, i+1)
}

func (c *console) StepStart(s session.Position) {
	if c.out.Brief {
		return
	}
	out, cfg, name := c.out.Stdout, s.Settings, c.plan.Workload.Meta().Name
	if s.IsBaseline() {
		fmt.Fprintf(out, "rightsize %s: %s on %s; measuring the baseline rate: closed loop, %s per instance; warm-up %v, measured %v\n",
			Version(), name, report.Plural(s.Instances, "instance"), report.Plural(cfg.Threads, "thread"), cfg.Warmup, cfg.Duration)
		return
	}
	switch {
	case s.Search:
		fmt.Fprintf(out, "\n== probe %d (of at most %d): %s\n", s.Index+1, s.Count, s.Spec.Label)
	case s.Count > 1:
		fmt.Fprintf(out, "\n== step %d of %d: %s\n", s.Index+1, s.Count, s.Spec.Label)
	}
	mode := fmt.Sprintf("closed loop, %s per instance", report.Plural(cfg.Threads, "thread"))
	if cfg.Rate > 0 {
		mode = fmt.Sprintf("open loop, %g/s per instance (%s), up to %d in flight", cfg.Rate, cfg.Arrival, cfg.Threads)
		if r := s.Spec.Rate; r.IsMultiple() {
			mode = fmt.Sprintf("open loop, %s of %.4g/s = %.4g/s per instance (%s), up to %d in flight",
				r, s.Baseline, cfg.Rate, cfg.Arrival, cfg.Threads)
		}
	}
	fmt.Fprintf(out, "rightsize %s: %s on %s; %s; warm-up %v, measured %v, report every %v\n",
		Version(), name, report.Plural(s.Instances, "instance"), mode, cfg.Warmup, cfg.Duration, cfg.Interval)
	if d := c.plan.Dist; d != nil && d.Sharded {
		p := d.Part
		fmt.Fprintf(out, "shard %s of run %s: instances %d..%d of %d, virtual users %d..%d of %d on each\n",
			d.Spec, d.RunID, p.FirstInstance+1, p.FirstInstance+p.Instances, d.Total[0], p.FirstVU+1, p.FirstVU+p.VUs, d.Total[1])
	}
}

func (c *console) Tick(s session.Position, agg result.Interval, _ []result.Interval) {
	if !c.out.Brief {
		_ = report.ProgressLine(c.out.Stdout, agg, s.Settings.Threads*s.Instances, c.unit)
	}
}

func (c *console) StepEnd(s session.Position, r *result.Run) error {
	if c.out.Brief {
		return c.briefLine(s, r)
	}
	err := report.Summary(c.out.Stdout, r)
	c.summaryFailed = err != nil
	return err
}

// briefLine is a step in one line: its throughput (of the rate offered)
// and response times.
func (c *console) briefLine(s session.Position, r *result.Run) error {
	name := s.Spec.Label
	if s.IsBaseline() {
		name = "baseline (closed loop)"
	}
	if name == "" {
		name = c.plan.Workload.Meta().Name
	}
	sum := r.Summary
	line := fmt.Sprintf("  %-24s %10.2f %s", name, sum.Throughput, c.unit)
	if sum.Offered > 0 {
		line += fmt.Sprintf(" of %.2f offered", sum.Offered)
	}
	_, err := fmt.Fprintf(c.out.Stdout, "%s, avg %s, p99 %s\n", line, report.Ms(sum.Latency.AvgMs), report.Ms(sum.Latency.P99Ms))
	c.summaryFailed = err != nil
	return err
}

func (c *console) Saved(_ session.Position, path string) {
	if c.out.Brief && !c.summaryFailed {
		return
	}
	if c.summaryFailed {
		fmt.Fprintf(c.out.Stderr, "rightsize: result: %s\n", path)
		return
	}
	fmt.Fprintf(c.out.Stdout, "result: %s\n", path)
}

func (c *console) Notice(msg string) { fmt.Fprintln(c.out.Stdout, msg) }

// Probed says what a search made of its probe.
func (c *console) Probed(s session.Position, p result.SearchProbe) {
	fmt.Fprintf(c.out.Stdout, "probe %s: %s\n", s.Spec.Label, report.ProbeLine(c.plan.SLOPct, c.plan.SLO, p))
}
func (c *console) Warn(msg string) { fmt.Fprintf(c.out.Stderr, "rightsize: %s\n", msg) }

// End shows the steps side by side and a sweep's verdict.
func (c *console) End(o *session.Outcome) error {
	if o.Failed {
		return nil
	}
	if c.out.Brief {
		return nil // the headline, the steps and the verdict are in the report
	}
	if o.Sweep != nil {
		fmt.Fprintln(c.out.Stdout)
		if err := report.WriteHeadline(c.out.Stdout, report.Headline(report.Doc{Sweep: o.Sweep}), report.Text); err != nil {
			return err
		}
	}
	if len(o.Runs) > 1 {
		if err := report.Steps(c.out.Stdout, o.Runs); err != nil {
			return err
		}
	}
	if o.Sweep == nil {
		return nil
	}
	if err := report.SweepTypes(c.out.Stdout, o.Sweep, report.Text); err != nil {
		return err
	}
	if err := report.SweepVerdict(c.out.Stdout, o.Sweep, report.Text); err != nil {
		return err
	}
	if o.SweepPath != "" {
		fmt.Fprintf(c.out.Stdout, "sweep: %s (Markdown: %s)\n", o.SweepPath, session.MarkdownPath(o.SweepPath))
	}
	return nil
}
