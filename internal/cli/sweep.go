package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

func sweepCmd(ctx context.Context, env *Env, w workload.Workload, c *commonFlags) error {
	if err := w.Validate(); err != nil { // the workload's own steps come from its options
		return usageError{err}
	}
	plan, err := c.sweepAxis(w)
	if err != nil {
		return err
	}
	return runSteps(ctx, env, w, c, plan)
}

// sweepPlan is a sweep's axis and its steps.
type sweepPlan struct {
	axis  string // "threads", "rate", "instances", or the workload's own (fileio's "read %")
	own   bool   // the workload's own steps (Stepper)
	steps []axisStep
}

// axisStep is one step of a sweep: its threads, rate and instances.
type axisStep struct {
	label     string
	threads   int
	rate      rateValue
	instances int     // how many of the instances run (0: all)
	x         float64 // the swept value, for the analysis
}

func (a axisStep) rateFor(baseline float64) float64 {
	if a.rate.multiple > 0 {
		return a.rate.multiple * baseline
	}
	return a.rate.perSec
}

// sweepAxis parses --threads, --rate and --instances lists, of which exactly
// one may have several values; with none, the workload's own steps (fileio's
// --read list) are the axis.
func (c *commonFlags) sweepAxis(w workload.Workload) (*sweepPlan, error) {
	threads, err := intList(c.threadList)
	if err != nil {
		return nil, usagef("threads %q: %v", c.threadList, err)
	}
	var rates []rateValue
	if strings.TrimSpace(c.rateList) != "" {
		for _, f := range strings.Split(c.rateList, ",") {
			var r rateValue
			if err := r.Set(f); err != nil {
				return nil, usagef("rate: %v", err)
			}
			rates = append(rates, r)
		}
	}
	if len(rates) > 1 {
		mult := rates[0].multiple > 0
		for _, r := range rates {
			if r.multiple == 0 && r.perSec == 0 {
				return nil, usagef("rate: 0 in a sweep list would be a closed-loop step; list open-loop rates only")
			}
			if (r.multiple > 0) != mult {
				return nil, usagef("rate %q: give every step as a multiple (1x,2x) or every step per second (100,200), not both", c.rateList)
			}
		}
		slices.SortFunc(rates, func(a, b rateValue) int { return cmp.Compare(a.multiple+a.perSec, b.multiple+b.perSec) })
		rates = slices.CompactFunc(rates, func(a, b rateValue) bool { return a.multiple == b.multiple && a.perSec == b.perSec })
	}
	if len(rates) == 0 {
		rates = []rateValue{{}}
	}
	counts, err := c.instanceCounts()
	if err != nil {
		return nil, usageError{err}
	}
	var own []workload.Step
	st, isStepper := w.(workload.Stepper)
	if isStepper {
		own = st.Steps()
	}
	lists := 0
	for _, n := range []int{len(threads), len(rates), len(counts), len(own)} {
		if n > 1 {
			lists++
		}
	}
	if lists > 1 {
		return nil, usagef("sweep one axis at a time: more than one of --threads, --rate, --instances (and %s's own steps) list several values", w.Name())
	}
	one := axisStep{threads: threads[0], rate: rates[0]}
	plan := &sweepPlan{}
	switch {
	case len(threads) > 1:
		plan.axis = "threads"
		for _, n := range threads {
			s := one
			s.label, s.threads, s.x = fmt.Sprintf("threads %d", n), n, float64(n)
			plan.steps = append(plan.steps, s)
		}
	case len(rates) > 1:
		plan.axis = "rate"
		for _, r := range rates {
			s := one
			s.label, s.rate, s.x = "rate "+r.String(), r, r.perSec
			if r.multiple > 0 {
				s.x = r.multiple
			}
			plan.steps = append(plan.steps, s)
		}
	case len(counts) > 1:
		plan.axis = "instances"
		for _, n := range counts {
			s := one
			s.label, s.instances, s.x = fmt.Sprintf("instances %d", n), n, float64(n)
			plan.steps = append(plan.steps, s)
		}
	case len(own) > 1:
		plan.axis, plan.own = st.StepAxis(), true
		for _, o := range own {
			s := one
			s.label, s.x = o.Label, o.X
			plan.steps = append(plan.steps, s)
		}
	default:
		return nil, usagef("sweep: give several values to --threads (1,2,4,8), --rate (1x,2x,3x or 100,200), --instances (1,2,4), or to the workload's own list (fileio: --read 100,90,70)")
	}
	return plan, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive whole number", f)
		}
		out = append(out, n)
	}
	// A sweep's axis rises: the knee methods read the steps in order.
	slices.Sort(out)
	return slices.Compact(out), nil
}

// sweepAnalysis builds the sweep from its steps' results, analyses it,
// prints the verdict and writes the sweep file.
func sweepAnalysis(env *Env, w workload.Workload, c *commonFlags, id string, plan *sweepPlan, runs []*result.Run, baseline *result.Run) (*analysis.Sweep, string, error) {
	sw := analysis.Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: w.Name(), Axis: plan.axis, OwnSteps: plan.own,
		SLOMs: c.slo, CPUTargetPct: c.cpuTarget}
	if c.rate.multiple > 0 || c.sweepsMultiples() {
		sw.BaselineRate = c.baseline
	}
	if baseline != nil && c.out != "-" {
		sw.Baseline = resultPath(c, id, w, workload.Step{Label: "baseline"}, 2)
	}
	sw.HostIsServer = len(runs) > 0
	for _, in := range runs[len(runs)-1:] {
		for _, ri := range in.Instances {
			sw.HostIsServer = sw.HostIsServer && onThisHost(ri.Dialect, ri.Target, env.Hostname)
			sw.Embedded = sw.Embedded || ri.Dialect == "sqlite"
		}
	}
	for i, r := range runs {
		a := plan.steps[i]
		st := analysis.SweepStep{Label: a.label, X: a.x, Throughput: r.Summary.Throughput, P95Ms: r.Summary.Latency.P95Ms, P99Ms: r.Summary.Latency.P99Ms,
			AvgMs: r.Summary.Latency.AvgMs, Errors: r.Summary.Errors, Host: r.Host, TickerLag: r.TickerLag}
		if r.Client != nil {
			st.ClientCPUUs = r.Client.CPUPerEventUs
		}
		st.Instances, st.Dropped = len(r.Instances), r.Summary.Dropped
		if c.out != "-" {
			st.Result = resultPath(c, id, w, workload.Step{Label: a.label}, len(plan.steps))
		}
		sw.Steps = append(sw.Steps, st)
	}
	sw.Analyze()
	if err := report.SweepVerdict(env.Stdout, &sw, report.Text); err != nil {
		return &sw, "", err
	}
	if c.out == "-" {
		return &sw, "", nil
	}
	path := filepath.Join("results", id+"-"+w.Name()+"-sweep.json")
	if c.out != "" {
		path = strings.TrimSuffix(c.out, ".json") + "-sweep.json"
	}
	b, err := json.MarshalIndent(sw, "", "  ")
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &sw, "", fmt.Errorf("sweep: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return &sw, "", fmt.Errorf("sweep: %w", err)
	}
	var md bytes.Buffer
	if err := report.SweepReport(&md, &sw, report.Markdown); err != nil {
		return &sw, path, err
	}
	mdPath := strings.TrimSuffix(path, ".json") + ".md"
	if err := os.WriteFile(mdPath, md.Bytes(), 0o644); err != nil {
		return &sw, path, fmt.Errorf("sweep: %w", err)
	}
	fmt.Fprintf(env.Stdout, "sweep: %s (Markdown: %s)\n", path, mdPath)
	return &sw, path, nil
}

// onThisHost reports whether an instance's database runs on this host: an
// embedded or file target, or a server on loopback, a socket or this
// host's own name.
func onThisHost(dialect, target, hostname string) bool {
	switch dialect {
	case "sqlite", "file":
		return true
	}
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "" || strings.EqualFold(h, "localhost") || (hostname != "" && strings.EqualFold(h, hostname)) {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// analyzeCommand re-runs a sweep's analysis from its file, with no database.
func analyzeCommand(env *Env) *cobra.Command {
	var slo, cpuTarget float64
	var format string
	cmd := &cobra.Command{
		Use:   "analyze SWEEP.json",
		Short: "Re-run a sweep's analysis (knees, USL, sweet spot, verdict) from its sweep file, with no database; as text or Markdown",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("analyze: name one sweep file (results/<id>-<workload>-sweep.json)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return runError{fmt.Errorf("analyze: %w", err)}
			}
			var sw analysis.Sweep
			if err := json.Unmarshal(b, &sw); err != nil {
				return runError{fmt.Errorf("analyze: %s is not a sweep file: %w", args[0], err)}
			}
			if sw.SchemaVersion != result.SchemaVersion {
				return runError{fmt.Errorf("analyze: %s has schema version %d; this rightsize reads %d", args[0], sw.SchemaVersion, result.SchemaVersion)}
			}
			if len(sw.Steps) == 0 {
				return runError{fmt.Errorf("analyze: %s holds no steps", args[0])}
			}
			f, err := report.ParseFormat(format, report.Text, report.Markdown)
			if err != nil {
				return usageError{err}
			}
			if c.Flags().Changed("slo") {
				sw.SLOMs = slo
			}
			if c.Flags().Changed("cpu-target") || sw.CPUTargetPct == 0 {
				sw.CPUTargetPct = cpuTarget
			}
			sw.Analyze()
			return report.SweepReport(env.Stdout, &sw, f)
		},
	}
	cmd.Flags().Float64Var(&slo, "slo", 0, "p99 objective in ms for the SLO knee (default: the sweep's)")
	cmd.Flags().StringVar(&format, "format", "text", "text, or markdown (the table and verdict as a Markdown document, as sweep writes beside the sweep file)")
	cmd.Flags().Float64Var(&cpuTarget, "cpu-target", 80, "host CPU % the sweet spot must stay under (default: the sweep's, else 80)")
	return cmd
}
