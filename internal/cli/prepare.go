package cli

import (
	"context"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/workload"
)

// prepareCmd prepares every target in turn (app.Prepare).
func prepareCmd(ctx context.Context, env *Env, w workload.Workload, c *runplan.Flags) error {
	if c.Loaders < 0 {
		name := "threads"
		if c.Changed("loaders") {
			name = "loaders"
		}
		return usagef("%s %d: want 0 (automatic) or more", name, c.Loaders)
	}
	ts, _, err := c.ParseTargets(w, env.Getenv)
	if err != nil {
		return err
	}
	return app.Prepare(ctx, env, w, ts, workload.PrepareOptions{Force: c.Force, Threads: c.Loaders, Seed: c.Seed})
}

// cleanupCmd cleans up every target, then drops the databases prepare
// created that hold nothing else (app.Cleanup).
func cleanupCmd(ctx context.Context, env *Env, w workload.Workload, c *runplan.Flags) error {
	ts, _, err := c.ParseTargets(w, env.Getenv)
	if err != nil {
		return err
	}
	return app.Cleanup(ctx, env, w, ts, workload.PrepareOptions{Force: c.Force}, c.Changed("instances"))
}

// checkCmd runs the workload's consistency checks on every target
// (app.Check); it fails (exit 1) when any condition fails.
func checkCmd(ctx context.Context, env *Env, w workload.Workload, c *runplan.Flags) error {
	if m := w.Meta(); !m.Check {
		return usagef("check: %s has no consistency checks", m.Name)
	}
	ts, _, err := c.ParseTargets(w, env.Getenv)
	if err != nil {
		return err
	}
	return app.Check(ctx, env, w, ts)
}
