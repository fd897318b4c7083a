package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload"
)

// runCmd is run and sweep: the flags become a plan, a session runs it.
func runCmd(ctx context.Context, env *Env, w workload.Workload, c *runplan.Flags) error {
	p, err := c.Plan(w, planEnv(env))
	if err != nil {
		return err
	}
	cmd := "run"
	if p.Sweep {
		cmd = "sweep"
	}
	outs := outputs(p)
	if err := asUsage(session.CheckOutputs(cmd, "--out", outs, resultOut, p.Force, nil)); err != nil {
		return err
	}
	if p.CPUProfile != "" {
		if err := checkOutput(cmd, "--cpuprofile", p.CPUProfile, profileOut, p.Force, nil); err != nil {
			return err
		}
	}
	flags := append(slices.Repeat([]string{"--out"}, len(outs)), "--cpuprofile")
	if err := asUsage(session.CheckOnce(cmd, flags, append(outs, p.CPUProfile))); err != nil {
		return err
	}
	_, err = execute(ctx, env, p)
	if err != nil && p.Prepare != "always" && app.MissingDatabase(p, err) {
		err = fmt.Errorf("%w (the database does not exist yet: `rightsize prepare %s --target URL`, with this command's workload options, creates and loads it, or give --prepare always)", err, p.Workload.Meta().CommandArg())
	}
	return err
}

// outputs are the files a plan writes whose names --out gives: the steps'
// results, a measured baseline's, a sweep's file and its Markdown report.
// With no --out the names hold the run's new id, and --out - writes none.
func outputs(p *runplan.Plan) []string {
	if p.Out.Path == "" || p.Out.None() {
		return nil
	}
	var out []string
	for _, l := range p.Steps {
		out = append(out, p.Out.Result("", l.Label, len(p.Steps)))
	}
	if p.Load.Baseline.Auto {
		out = append(out, p.Out.Baseline(""))
	}
	if p.Sweep {
		sw := p.Out.Sweep("")
		out = append(out, sw, session.MarkdownPath(sw))
	}
	return out
}

// execute runs a plan with the observers its options ask for
// (app.Run): the console always, Prometheus, the CPU profile and the
// history catalog when given.
func execute(ctx context.Context, env *Env, p *runplan.Plan) (*session.Outcome, error) {
	return app.Run(ctx, env, p, app.Record)
}

// planEnv is what runplan.Plan reads from the process (app.PlanEnv).
func planEnv(env *Env) runplan.Env { return app.PlanEnv(env) }

// CheckpointReason starts a checkpoint's partial_reason (see package
// session).
const CheckpointReason = session.CheckpointReason
