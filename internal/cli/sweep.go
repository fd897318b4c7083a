package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload"
)

func sweepCmd(ctx context.Context, env *Env, w workload.Workload, c *commonFlags) error {
	axis, err := c.sweepAxis()
	if err != nil {
		return err
	}
	return runSteps(ctx, env, w, c, axis)
}

// axisStep is one step of a sweep: its threads and rate.
type axisStep struct {
	label   string
	threads int
	rate    rateValue
	x       float64 // the swept value, for the analysis
}

func (a axisStep) rateFor(baseline float64) float64 {
	if a.rate.multiple > 0 {
		return a.rate.multiple * baseline
	}
	return a.rate.perSec
}

// sweepAxis parses --threads and --rate lists; exactly one may have several
// values.
func (c *commonFlags) sweepAxis() ([]axisStep, error) {
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
	if len(rates) == 0 {
		rates = []rateValue{{}}
	}
	switch {
	case len(threads) > 1 && len(rates) > 1:
		return nil, usagef("sweep one axis at a time: --threads and --rate both list several values")
	case len(threads) > 1:
		var out []axisStep
		for _, n := range threads {
			out = append(out, axisStep{label: fmt.Sprintf("threads %d", n), threads: n, rate: rates[0], x: float64(n)})
		}
		return out, nil
	case len(rates) > 1:
		var out []axisStep
		for _, r := range rates {
			x := r.perSec
			if r.multiple > 0 {
				x = r.multiple
			}
			out = append(out, axisStep{label: "rate " + r.String(), threads: threads[0], rate: r, x: x})
		}
		return out, nil
	}
	return nil, usagef("sweep: give several values to --threads (1,2,4,8) or --rate (1x,2x,3x or 100,200)")
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
	return out, nil
}

// Sweep is the sweep file: the steps' result files and the analysis.
type Sweep struct {
	SchemaVersion int              `json:"schema_version"`
	ID            string           `json:"id"`
	Workload      string           `json:"workload"`
	Axis          string           `json:"axis"` // "threads" or "rate"
	Steps         []SweepStep      `json:"steps"`
	Knees         []analysis.Knee  `json:"knees"`
	USL           *analysis.USL    `json:"usl,omitempty"`
	USLError      string           `json:"usl_error,omitempty"`
	SLOMs         float64          `json:"slo_ms,omitempty"`
	CPUTargetPct  float64          `json:"cpu_target_pct,omitempty"`
	Demand        *analysis.Demand `json:"demand,omitempty"`
	DemandError   string           `json:"demand_error,omitempty"`
}

// SweepStep is one step's headline and its result file.
type SweepStep struct {
	Label      string       `json:"label"`
	X          float64      `json:"x"`
	Throughput float64      `json:"throughput"`
	P99Ms      float64      `json:"p99_ms"`
	AvgMs      float64      `json:"avg_ms"`
	Errors     int64        `json:"errors"`
	Host       *result.Host `json:"host,omitempty"`
	Result     string       `json:"result,omitempty"`
}

// sweepAnalysis builds the sweep from its steps' results, analyses it,
// prints the verdict and writes the sweep file.
func sweepAnalysis(env *Env, w workload.Workload, c *commonFlags, id string, axis []axisStep, runs []*result.Run) error {
	sw := Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: w.Name(), Axis: "threads", SLOMs: c.slo, CPUTargetPct: c.cpuTarget}
	if axis[0].threads == axis[len(axis)-1].threads {
		sw.Axis = "rate"
	}
	for i, r := range runs {
		st := SweepStep{Label: axis[i].label, X: axis[i].x, Throughput: r.Summary.Throughput, P99Ms: r.Summary.Latency.P99Ms,
			AvgMs: r.Summary.Latency.AvgMs, Errors: r.Summary.Errors, Host: r.Host}
		if c.out != "-" {
			st.Result = resultPath(c, id, w, workload.Step{Label: axis[i].label}, len(axis))
		}
		sw.Steps = append(sw.Steps, st)
	}
	analyze(&sw)
	printVerdict(env, &sw)
	if c.out == "-" {
		return nil
	}
	path := filepath.Join("results", id+"-"+w.Name()+"-sweep.json")
	if c.out != "" {
		path = strings.TrimSuffix(c.out, ".json") + "-sweep.json"
	}
	b, err := json.MarshalIndent(sw, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	fmt.Fprintf(env.Stdout, "sweep: %s\n", path)
	return nil
}

// analyze finds the knees (and, over threads, fits the USL) from the steps.
func analyze(sw *Sweep) {
	var ps []analysis.Point
	var xs, ys []float64
	for _, st := range sw.Steps {
		ps = append(ps, analysis.Point{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms})
		xs, ys = append(xs, st.X), append(ys, st.Throughput)
	}
	sw.Knees = []analysis.Knee{analysis.MarginalKnee(ps, 0.2), analysis.Kneedle(ps)}
	if sw.SLOMs > 0 {
		sw.Knees = append(sw.Knees, analysis.SLOKnee(ps, sw.SLOMs))
	}
	sw.Demand, sw.DemandError = nil, ""
	var ls []analysis.Load
	cpus := 0
	for _, st := range sw.Steps {
		if st.Host == nil {
			ls = nil
			break
		}
		cpus = st.Host.CPUs
		ls = append(ls, analysis.Load{X: st.X, Throughput: st.Throughput, P99Ms: st.P99Ms, BusyPct: st.Host.CPU.Busy()})
	}
	if ls == nil {
		sw.DemandError = "no host CPU figures for every step"
	} else if d, err := analysis.ServiceDemand(ls, cpus, sw.CPUTargetPct); err != nil {
		sw.DemandError = err.Error()
	} else {
		sw.Demand = &d
	}
	sw.USL, sw.USLError = nil, ""
	if sw.Axis == "threads" {
		if u, err := analysis.FitUSL(xs, ys, 200, 1); err == nil {
			sw.USL = &u
		} else {
			sw.USLError = err.Error()
		}
	}
}

// printVerdict writes the knees, the host at each, and the USL fit.
func printVerdict(env *Env, sw *Sweep) {
	fmt.Fprintf(env.Stdout, "\nsweep verdict (%s):\n", sw.Axis)
	for _, k := range sw.Knees {
		fmt.Fprintf(env.Stdout, "  %-8s %s\n", k.Method+":", k.Reason)
		if k.Index >= 0 && k.Index < len(sw.Steps) && sw.Steps[k.Index].Host != nil {
			h := sw.Steps[k.Index].Host
			fmt.Fprintf(env.Stdout, "           host at that step: CPU user %.0f%% sys %.0f%% iowait %.0f%% steal %.0f%% idle %.0f%%, run queue %d\n",
				h.CPU.User, h.CPU.System, h.CPU.Iowait, h.CPU.Steal, h.CPU.Idle, h.RunQueue)
		}
	}
	if d := sw.Demand; d != nil {
		fmt.Fprintf(env.Stdout, "  demand:  %s\n", d.SweetSpot.Reason)
	}
	if u := sw.USL; u != nil {
		fmt.Fprintf(env.Stdout, "  usl:     λ %.4g/s per thread, σ %.4f (contention), κ %.5f (coherency), R² %.3f; ",
			u.Lambda, u.Sigma, u.Kappa, u.R2)
		if math.IsInf(u.Peak, 1) {
			fmt.Fprintf(env.Stdout, "no peak: with κ = 0 throughput levels off towards %.4g/s without turning down", u.PeakX)
		} else {
			fmt.Fprintf(env.Stdout, "peak at %.1f threads, %.4g/s (95%% interval %.1f to %.1f threads)", u.Peak, u.PeakX, u.PeakCI[0], u.PeakCI[1])
		}
		if u.Retrograde {
			fmt.Fprintf(env.Stdout, "; retrograde: throughput falls past the peak")
		}
		fmt.Fprintln(env.Stdout)
	} else if sw.USLError != "" {
		fmt.Fprintf(env.Stdout, "  usl:     not fitted: %s\n", sw.USLError)
	}
}

// analyzeCommand re-runs a sweep's analysis from its file, with no database.
func analyzeCommand(env *Env) *cobra.Command {
	var slo, cpuTarget float64
	cmd := &cobra.Command{
		Use:   "analyze SWEEP.json",
		Short: "Re-run a sweep's analysis (knees, USL) from its sweep file, with no database",
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
			var sw Sweep
			if err := json.Unmarshal(b, &sw); err != nil {
				return runError{fmt.Errorf("analyze: %s is not a sweep file: %w", args[0], err)}
			}
			if sw.SchemaVersion != result.SchemaVersion {
				return runError{fmt.Errorf("analyze: %s has schema version %d; this rightsize reads %d", args[0], sw.SchemaVersion, result.SchemaVersion)}
			}
			if len(sw.Steps) == 0 {
				return runError{fmt.Errorf("analyze: %s holds no steps", args[0])}
			}
			if c.Flags().Changed("slo") {
				sw.SLOMs = slo
			}
			if c.Flags().Changed("cpu-target") || sw.CPUTargetPct == 0 {
				sw.CPUTargetPct = cpuTarget
			}
			analyze(&sw)
			fmt.Fprintf(env.Stdout, "%s sweep %s over %s, %d steps\n", sw.Workload, sw.ID, sw.Axis, len(sw.Steps))
			printVerdict(env, &sw)
			return nil
		},
	}
	cmd.Flags().Float64Var(&slo, "slo", 0, "p99 objective in ms for the SLO knee (default: the sweep's)")
	cmd.Flags().Float64Var(&cpuTarget, "cpu-target", 80, "host CPU % the sweet spot must stay under (default: the sweep's, else 80)")
	return cmd
}
