package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/stored"
)

const planLong = `Plan VM sizes and vNUMA layouts against a host's topology, with every rule
given as a reason (the first seed study's rules, DOMAIN.md §1):

  1. one vCPU per physical core: hyperthreads are not cores (a sibling adds
     about 20 %, --ht-gain), and no VM gets more vCPUs than the host has cores;
  2. fit one NUMA node (vCPUs ≤ cores per node, memory ≤ memory per node)
     where possible; a wider VM is allowed;
  3. a wide VM splits evenly over the fewest nodes, has an even vCPU count,
     cores per socket = vCPUs per node, and no CPU hot-add (it disables vNUMA);
  4. right-size: the smallest VM that carries the target rate (--from a sweep,
     --target-rate) at --cpu-target peak CPU (default 80 %), below the
     sweep's knee at its p99 objective (--slo; default: the sweep's own);
  5. consolidation (--consolidate): overcommit ratios, peak demand against
     capacity (cores + the HT gain), and CPU contention per VM from an Erlang C
     model and a small simulation of the vCPUs (ready, co-stop, a busy sibling).
     Its limits: not ESX's scheduler; no NUMA locality, interrupts, shares or
     limits; figures give direction and order of magnitude.

The host: --host auto reads this machine's /sys; --host FILE reads a YAML
description (sockets, cores_per_socket, threads_per_core, numa_nodes,
memory_per_node such as 128GiB; see docs/planner.md).
VMs: --vm NAME:vcpu=16,mem=96GB[,cps=8][,hotadd][,busy=0.85] (repeat), or
--vms FILE (a YAML list of name, vcpu, memory, cores_per_socket, cpu_hot_add,
busy). Each setting once; vcpu and cps at most 4096 (the most vCPUs a
hypervisor gives one VM), mem and --mem at most 1 PiB; a host file at most
64 KiB, a VM list 1 MiB. A target rate that needs more than 4096 vCPUs is
refused (exit 2) with the most this host carries; one beyond this host's
cores gets a VM that fails, and the reason says why in one sentence.

A sweep that measured the database server's own processes' CPU (its
server on this host) is sized from that CPU; a target rate past a knee that
CPU did not cause (the database's sessions waited on locks, the log or I/O
while the CPUs were not busy) gets no VM, and the plan says what would have
to change instead.

Exit status 1 when a VM fails a rule, when no VM carries the target rate
past such a knee, or when the what-if finds the host oversubscribed, so
scripts can gate on it.`

// planOptions are plan's flags.
type planOptions struct {
	hostArg, vmsFile, from, targetRate, format, memArg, htArg string
	vmSpecs                                                   []string
	cpuTarget, sloMs                                          float64
	consolidate                                               bool
	seed                                                      uint64
	htChanged                                                 bool // --ht-gain was given
	predictCPUs                                               string
	verify                                                    bool
	verifyArgs                                                []string // the workload and its flags after --
}

func planCommand(env *Env) *cobra.Command {
	var o planOptions
	cmd := &cobra.Command{
		Use:   "plan [--verify -- WORKLOAD [flags]]",
		Short: "Plan VM sizes and vNUMA layouts against a host, right-size from a sweep, and what-if consolidation",
		Long:  planLong,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && !o.verify {
				return usagef("plan takes no arguments (a workload after -- only with --verify): %q", args[0])
			}
			if o.verify {
				if o.from == "" {
					return usagef("--verify checks a right-sizing: give --from SWEEP.json and --target-rate")
				}
				return checkVerifyArgs(args)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.htChanged = c.Flags().Changed("ht-gain")
			o.verifyArgs = args
			return runPlan(c.Context(), env, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.hostArg, "host", "auto", "the host: auto (this machine, from /sys) or a YAML host description file")
	fl.StringArrayVar(&o.vmSpecs, "vm", nil, "a VM: NAME:vcpu=N[,mem=SIZE][,cps=N][,hotadd][,busy=0.85] (repeat for several)")
	fl.StringVar(&o.vmsFile, "vms", "", "a YAML file listing VMs (name, vcpu, memory, cores_per_socket, cpu_hot_add, busy)")
	fl.StringVar(&o.from, "from", "", "right-size from this sweep file (its service demand, knee and response-time curve)")
	fl.StringVar(&o.targetRate, "target-rate", "", "events per second the VM must carry, or a multiple of the sweep's baseline rate (3x)")
	fl.Float64Var(&o.cpuTarget, "cpu-target", 80, "peak CPU % the right-sized VM should run at")
	runplan.MillisVar(fl, &o.sloMs, "slo", 0, "p99 objective of the --from sweep's SLO knee: a duration (50ms) or milliseconds (default: the sweep's)")
	fl.StringVar(&o.memArg, "mem", "", "memory of the right-sized VM (e.g. 96GB), for the NUMA rules")
	fl.StringVar(&o.htArg, "ht-gain", "20", "what a hyperthread sibling adds to a busy core, in %, or measure: measure it on this machine now (--host auto; as rightsize measure ht does)")
	fl.BoolVar(&o.consolidate, "consolidate", false, "what if the VMs share this host at their peak (busy=): overcommit, capacity, contention")
	fl.Uint64Var(&o.seed, "seed", 1, "seed of the consolidation simulation (the same seed repeats its figures)")
	fl.StringVar(&o.format, "format", "text", "text, markdown or json")
	fl.StringVar(&o.predictCPUs, "predict-cpus", "", "with --from and an objective: also predict on these allotments of CPUs (0.5,1,1.5): the capacity at the objective and the p99 at the target rate, with the demand's spread")
	fl.BoolVar(&o.verify, "verify", false, "check the plan: run the workload given after -- (as run takes it) at the target rate with the database server on this host held to the planned vCPUs (run --rate R --db-cpus N, 10 s warm-up, 30 s measured unless its flags say otherwise), and write predicted beside measured; a run that misses the objective fails the plan (exit 1)")
	return cmd
}

// runPlan checks plan's options, builds the report and writes it.
func runPlan(ctx context.Context, env *Env, o planOptions) error {
	f, err := report.ParseFormat(o.format, report.Text, report.Markdown, report.JSON)
	if err != nil {
		return usageError{err}
	}
	htGain, htSource, err := o.htGain()
	if err != nil {
		return err
	}
	if err := runplan.CheckCPUTarget(o.cpuTarget); err != nil {
		return usageError{err}
	}
	h, err := app.LoadHost(env, o.hostArg)
	if err != nil {
		return wrapRun(err)
	}
	if o.htArg == "measure" {
		if htGain, htSource, err = app.PlanHTGain(ctx, h, htGain); err != nil {
			return runError{err}
		}
	}
	r := &sizing.Report{Host: h, HTGainPct: htGain, HTGainSource: htSource}
	vms, mem, err := o.vms()
	if err != nil {
		return err
	}
	if len(vms) == 0 && o.from == "" {
		// Nothing to plan: describe the host alone.
		return report.Plan(env.Stdout, r, f)
	}
	for _, vm := range vms {
		r.VMs = append(r.VMs, sizing.CheckVM(h, vm))
	}
	if o.from != "" {
		s, err := sizeFromSweep(r, o, mem)
		if err != nil {
			return err
		}
		r.Sizing = &s
		if o.verify {
			v, err := verifyPlan(ctx, env, &s, o, o.verifyArgs)
			s.Verified = v
			if err != nil && (v == nil || ctx.Err() != nil) {
				return err
			}
		}
	}
	if o.consolidate {
		cons, err := sizing.Consolidate(h, vms, htGain/100, o.seed)
		if err != nil {
			return usageError{err}
		}
		r.Consolidation = &cons
	}
	if err := report.Plan(env.Stdout, r, f); err != nil {
		return err
	}
	if r.Fails() {
		return runError{errPlanFails}
	}
	return nil
}

// htGain reads --ht-gain: a percentage, or measure (on this machine, later).
func (o planOptions) htGain() (float64, string, error) {
	if o.htArg == "measure" {
		if o.hostArg != "auto" {
			return 0, "", usagef("ht-gain measure measures this machine: it needs --host auto, not a described host")
		}
		return 20, "default", nil
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(o.htArg, "%"), 64)
	if err != nil || !(v >= 0 && v <= 100) {
		return 0, "", usagef("ht-gain %q: want a percentage from 0 to 100, or measure", o.htArg)
	}
	if o.htChanged {
		return v, "--ht-gain", nil
	}
	return v, "default", nil
}

// vms reads the VMs of --vm and --vms and the right-sized VM's --mem, and
// checks that the options go together; every problem at once.
func (o planOptions) vms() ([]sizing.VM, int64, error) {
	var vms []sizing.VM
	var errs []error
	for _, s := range o.vmSpecs {
		vm, err := sizing.ParseVMSpec(s)
		if err != nil {
			errs = append(errs, err)
		}
		vms = append(vms, vm)
	}
	if o.vmsFile != "" {
		f, err := os.Open(o.vmsFile)
		if err != nil {
			return nil, 0, runError{fmt.Errorf("vms: %w", err)}
		}
		more, err := sizing.ReadVMs(f, o.vmsFile)
		f.Close()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, 0, runError{fmt.Errorf("vms: %w", err)} // a directory, an I/O error
		}
		if err != nil {
			errs = append(errs, err)
		}
		vms = append(vms, more...)
	}
	var mem int64
	if o.memArg != "" {
		var err error
		if mem, err = sizing.ParseMemory(o.memArg); err != nil {
			errs = append(errs, err)
		}
	}
	if (o.from == "") != (o.targetRate == "") {
		errs = append(errs, errors.New("right-sizing needs both --from SWEEP.json and --target-rate"))
	}
	if o.consolidate && len(vms) < 1 {
		errs = append(errs, errors.New("consolidate: give the VMs (--vm or --vms)"))
	}
	if len(errs) > 0 {
		return nil, 0, usageError{errors.Join(errs...)}
	}
	return vms, mem, nil
}

// errPlanFails: a VM breaks a rule (exit 1).
var errPlanFails = errors.New("the plan has failing rules")

// sizeFromSweep right-sizes from the service demand of the sweep file
// --from (sizing.SizeFromSweep), at --target-rate (events per second, or a
// multiple of the sweep's baseline: runplan.ParseRate) and --slo (0: the
// sweep's), for r's host.
func sizeFromSweep(r *sizing.Report, o planOptions, mem int64) (sizing.Sizing, error) {
	path, rateArg, cpuTarget := o.from, o.targetRate, o.cpuTarget
	sw, err := stored.ReadSweep(path)
	if err != nil {
		return sizing.Sizing{}, runError{fmt.Errorf("from: %w", err)}
	}
	rt, err := runplan.ParseRate(rateArg)
	if err != nil || rt.IsZero() {
		return sizing.Sizing{}, usagef("target-rate %q: want events per second (3000) or a multiple of the sweep's baseline (3x)", rateArg)
	}
	rate := sizing.TargetRate{PerSecond: rt.PerSecond(0), Multiple: rt.Multiple(), Text: rateArg}
	var predict []float64
	if o.predictCPUs != "" {
		predict, err = (&runplan.Flags{DBCPUList: o.predictCPUs}).DBCPUs()
		if err != nil {
			return sizing.Sizing{}, usagef("predict-cpus: %v", strings.TrimPrefix(err.Error(), "--db-cpus "))
		}
	}
	s, err := sizing.SizeFromSweep(sizing.FromSweep{Host: r.Host, Sweep: sw, Name: path, Rate: rate, CPUTargetPct: cpuTarget, Memory: mem, SLOMs: o.sloMs, PredictCPUs: predict})
	switch {
	case errors.Is(err, sizing.ErrNoDemand):
		return s, runError{fmt.Errorf("from: %w", err)}
	case err != nil:
		return s, usageError{err}
	}
	return s, nil
}

func measureCommand(env *Env) *cobra.Command {
	m := &cobra.Command{
		Use:   "measure",
		Short: "Measure a property of this machine (ht: the hyperthreading gain)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("measure: unknown subcommand %q (one of: ht)", args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef("measure: name what to measure (one of: ht)")
		},
	}
	var d time.Duration
	var rounds int
	var asJSON bool
	ht := &cobra.Command{
		Use:   "ht",
		Short: "Measure what a hyperthread sibling adds to a busy core on this machine",
		Long: `Runs a CPU-bound loop on one thread per physical core, then on every logical
CPU (both siblings of each core), each pinned to its CPU, for --time per phase
and --rounds rounds, and reports the gain: the work of all siblings over the
work of one thread per core, minus one, with its spread. Use the result as
plan --ht-gain. On a host without hyperthreading (or with it off) there is
no sibling, and it says so instead of giving a number.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if d <= 0 || rounds < 1 {
				return usagef("measure ht: --time must be positive and --rounds at least 1")
			}
			res, err := app.MeasureHT(c.Context(), env, d, rounds)
			if err != nil {
				return runError{err}
			}
			if asJSON {
				b, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
				return err
			}
			fmt.Fprintf(env.Stdout, "%d physical cores, %d logical CPUs\n", res.Cores, res.Threads)
			if !res.Measured {
				fmt.Fprintf(env.Stdout, "no hyperthreading gain measured: %s\n", res.Note)
				return nil
			}
			fmt.Fprintf(env.Stdout, "hyperthreading gain %.1f%% (rounds %d: min %.1f%%, max %.1f%%, standard deviation %.1f%%)\n",
				res.GainPct, res.Rounds, res.MinPct, res.MaxPct, res.StdDevPct)
			if res.Note != "" {
				fmt.Fprintf(env.Stdout, "note: %s\n", res.Note)
			}
			fmt.Fprintf(env.Stdout, "use: rightsize plan --ht-gain %.0f ...\n", res.GainPct)
			return nil
		},
	}
	ht.Flags().DurationVar(&d, "time", 2*time.Second, "how long each phase runs")
	ht.Flags().IntVar(&rounds, "rounds", 3, "rounds of both phases")
	ht.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	m.AddCommand(ht)
	return m
}
