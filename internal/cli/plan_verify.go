package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// verifyDefaults are the run flags a verification starts from, before the
// user's (which may change them): a warm-up, and a window long enough for
// a p99 of a few thousand events.
var verifyDefaults = []string{"--warmup", "10s", "--time", "30s"}

// verifySets are the flags a verification sets from the plan, which the
// workload's arguments may not give.
var verifySets = []string{"--rate", "--db-cpus"}

// checkVerifyArgs checks the workload and flags given after -- for
// --verify: a workload, none of the flags the plan sets.
func checkVerifyArgs(args []string) error {
	if len(args) == 0 {
		return usagef("--verify runs the workload again at the target rate: give it after --, as run takes it (rightsize plan --from SWEEP --target-rate R --verify -- oltp_read_only --tables 4 --target URL)")
	}
	for _, a := range args[1:] {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(verifySets, name) {
			return usagef("--verify sets %s from the plan (the target rate, the planned vCPUs): leave it out of the workload's flags", name)
		}
	}
	return nil
}

// verifyPlan runs the plan's target rate with the database held to its
// planned vCPUs (run --rate --db-cpus, the workload and flags of args),
// its output on stderr, and checks the result against the plan
// (sizing.Verify). A plan with no VM has nothing to verify (nil).
func verifyPlan(ctx context.Context, env *Env, s *sizing.Sizing, o planOptions, args []string) (*sizing.Verification, error) {
	if s.VCPU == 0 {
		fmt.Fprintln(env.Stderr, "rightsize: --verify: the plan gives no VM, so there is nothing to run")
		return nil, nil
	}
	w, err := all.Lookup(args[0])
	if err != nil {
		return nil, usageError{fmt.Errorf("--verify: %w", err)}
	}
	cpus := float64(s.VCPU)
	rate := s.Rate
	flags := func(perInstance float64) []string {
		f := append(slices.Clone(verifyDefaults), args[1:]...)
		return append(f, "--rate", strconv.FormatFloat(perInstance, 'f', -1, 64), "--db-cpus", strconv.FormatFloat(cpus, 'f', -1, 64))
	}
	perInstance := rate
	p, err := runplan.PlanArgs(w, runplan.PhaseRun, flags(perInstance), planEnv(env))
	if err == nil && len(p.Targets) > 1 {
		perInstance = rate / float64(len(p.Targets))
		p, err = runplan.PlanArgs(w, runplan.PhaseRun, flags(perInstance), planEnv(env))
	}
	if err != nil {
		return nil, usageError{fmt.Errorf("--verify: %w", err)}
	}
	cmd := append([]string{"run", args[0]}, flags(perInstance)...)
	fmt.Fprintf(env.Stderr, "verifying the plan: %d vCPUs at %.4g/s\n", s.VCPU, rate)
	app.PrintCommand(env.Stderr, cmd)
	runEnv := *env
	runEnv.Stdout = env.Stderr // the plan's report alone on stdout
	out, err := execute(ctx, &runEnv, p)
	if err != nil && (out == nil || len(out.Runs) == 0) {
		return nil, runError{fmt.Errorf("--verify: %w", err)}
	}
	if len(out.Runs) == 0 {
		return nil, runError{errors.New("--verify: the run made no result")}
	}
	v := sizing.Verify(s, cpus, rate, o.cpuTarget, out.Runs[0])
	v.Command = app.CommandLine(cmd)
	if len(out.Paths) > 0 && out.Paths[0] != "-" {
		v.Result = out.Paths[0]
	}
	return &v, err
}
