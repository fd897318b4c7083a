package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/study"
)

// studyPlan right-sizes a VM for a study (studyVM); a sweep that gives no
// VM is said, and an earlier plan.json in dir removed (it would read as
// this one's), so that the study reports what its steps found.
func studyPlan(ctx context.Context, env *Env, p *study.Sizing, sweep, dir string, verify []string) (string, error) {
	path, err := studyVM(ctx, env, p, sweep, dir, verify)
	if errors.Is(err, sizing.ErrNoDemand) || errors.Is(err, sizing.ErrNoVMFits) {
		fmt.Fprintf(env.Stdout, "plan: no VM planned: %v\n", err)
		if err := os.Remove(filepath.Join(dir, "plan.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", runError{fmt.Errorf("study: plan: %w", err)}
		}
		return "", nil
	}
	return path, err
}

// studyVM right-sizes a VM from the plan step's sweep, as 'rightsize plan
// --from SWEEP --target-rate R --cpu-target C' does, into dir/plan.json;
// with verify (the plan step's workload and run flags), checked by a run
// as --verify does.
func studyVM(ctx context.Context, env *Env, p *study.Sizing, sweep, dir string, verify []string) (string, error) {
	if sweep == "" {
		return "", runError{fmt.Errorf("study: plan: step %s wrote no sweep file", p.Stage)}
	}
	cpu := fmt.Sprintf("%g", p.CPUTarget)
	printCommand(env, []string{"plan", "--from", sweep, "--target-rate", p.TargetRate, "--cpu-target", cpu, "--format", "json"})
	h, err := app.LoadHost(env, "auto")
	if err != nil {
		return "", wrapRun(err)
	}
	pr := &sizing.Report{Host: h, HTGainPct: 20, HTGainSource: "default"}
	sizing, err := sizeFromSweep(pr, planOptions{from: sweep, targetRate: p.TargetRate, cpuTarget: p.CPUTarget}, 0)
	if err != nil {
		return "", err
	}
	pr.Sizing = &sizing
	if len(verify) > 0 {
		printCommand(env, append([]string{"plan", "--from", sweep, "--target-rate", p.TargetRate, "--cpu-target", cpu, "--verify", "--"}, verify...))
		v, err := verifyPlan(ctx, env, &sizing, planOptions{cpuTarget: p.CPUTarget}, verify)
		if err != nil && (v == nil || ctx.Err() != nil) {
			return "", err
		}
		sizing.Verified = v
	}
	var b bytes.Buffer
	if err := report.Plan(&b, pr, report.JSON); err != nil {
		return "", runError{fmt.Errorf("study: plan: %w", err)}
	}
	path := filepath.Join(dir, "plan.json")
	if err := writeOutput(path, b.Bytes()); err != nil { // atomic: a full disk leaves the old plan whole
		return "", runError{fmt.Errorf("study: plan: %w", err)}
	}
	if sizing.NotCPU != nil {
		fmt.Fprintf(env.Stdout, "plan: no VM for %s: %s\n", p.TargetRate, sizing.Limit)
	} else {
		fmt.Fprintf(env.Stdout, "plan: %s for %s at %s %% CPU on this machine's topology\n", plural(sizing.VCPU, "vCPU"), p.TargetRate, cpu)
	}
	for _, r := range sizing.Reasons {
		fmt.Fprintf(env.Stdout, "  %s\n", r)
	}
	if v := sizing.Verified; v != nil {
		fmt.Fprintf(env.Stdout, "plan verified by a run: %s\n", v.Sentence())
	}
	return path, nil
}

func studyShowCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "show PROTOCOL",
		Short: "Print a built-in protocol's study file (to copy and change)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("study show: name one protocol (%s)", strings.Join(study.Builtins(), ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			b, ok := study.Builtin(args[0])
			if !ok {
				return usagef("study show: no protocol %q (built in: %s)", args[0], strings.Join(study.Builtins(), ", "))
			}
			_, err := env.Stdout.Write(b)
			return err
		},
	}
}

func studyListCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in protocols and the studies they follow",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, name := range study.Builtins() {
				s, _, err := study.ParseBuiltin(name)
				if err != nil {
					return runError{err}
				}
				fmt.Fprintf(env.Stdout, "%-18s %s\n%-18s follows: %s\n", name, s.Title, "", s.Follows)
			}
			return nil
		},
	}
}

// fileExists reports whether path names something (the plan a study wrote).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
