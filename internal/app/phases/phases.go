// Package phases runs the phases other than run on a workload's targets
// from the command line: prepare (with its progress), cleanup (and the
// databases prepare created) and check, each instance in turn.
package phases

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/app/observers"
	"github.com/rightsize/rightsize/internal/app/run"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload"
)

// eachInstance opens every target, then calls fn for each in turn, and
// closes them all.
func eachInstance(ctx context.Context, ts []workload.Target, fn func(i, n int, t workload.Target, in workload.Instance) error) error {
	ins, err := session.OpenAll(ctx, ts)
	if err != nil {
		return err
	}
	defer session.CloseAll(ins)
	for i, in := range ins {
		if err := fn(i, len(ins), ts[i], in); err != nil {
			return err
		}
	}
	return nil
}

// Prepare prepares instances one after another: they usually share a
// server, and each already loads its tables in parallel.
func Prepare(ctx context.Context, env *run.Env, w workload.Workload, ts []workload.Target, o workload.PrepareOptions) error {
	return eachInstance(ctx, ts, func(i, n int, t workload.Target, in workload.Instance) error {
		start := time.Now()
		fmt.Fprintf(env.Stderr, "preparing %s (instance %d of %d)\n", t, i+1, n)
		if err := in.Prepare(ctx, o, observers.NewProgress(env.Out(), t.String())); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "prepared %s for %s in %.1f s\n", t, w.Meta().Name, time.Since(start).Seconds())
		return nil
	})
}

// Cleanup cleans up each instance and says what it removed, or that there
// was nothing to clean up (a second cleanup, or nothing prepared).
// Once every instance is closed, it drops the databases prepare created
// (those --instances numbered, or any a --target named that did not exist)
// that now hold nothing else (DropCreatedDatabases). numbered says whether
// --instances was given (an error saying a database is missing then needs
// no hint about it).
func Cleanup(ctx context.Context, env *run.Env, w workload.Workload, ts []workload.Target, o workload.PrepareOptions, numbered bool) error {
	var cleaned []workload.Target
	err := eachInstance(ctx, ts, func(i, _ int, t workload.Target, in workload.Instance) error {
		removed, err := in.Cleanup(ctx, o)
		switch {
		case err != nil && len(removed) > 0:
			fmt.Fprintf(env.Stdout, "removed %s from %s before the error below\n", nameList(removed), t)
			return err
		case err != nil && !numbered && in.Classify(err) == errclass.Missing:
			return fmt.Errorf("%w; if --instances numbered databases from this URL (NAME_1..NAME_N, as a study's steps do), give cleanup the same --instances", err)
		case err != nil:
			return err
		case len(removed) == 0:
			fmt.Fprintf(env.Stdout, "nothing to clean up on %s for %s (already clean, or never prepared)\n", t, w.Meta().Name)
		default:
			fmt.Fprintf(env.Stdout, "cleaned up %s for %s: removed %s\n", t, w.Meta().Name, nameList(removed))
		}
		cleaned = append(cleaned, t)
		return nil
	})
	if err != nil {
		return err
	}
	return DropCreatedDatabases(ctx, env, cleaned)
}

// DropCreatedDatabases drops the database of each target that prepare
// created and that holds nothing else now, and says which it dropped and
// which it kept and why (one line per reason); a database prepare did not
// create is not named.
func DropCreatedDatabases(ctx context.Context, env *run.Env, ts []workload.Target) error {
	var dropped, reasons []string
	kept := map[string][]string{}
	say := func(suffix string) {
		for _, r := range reasons {
			fmt.Fprintf(env.Stdout, "kept the %s of %s, which prepare created: %s\n", report.NounFor(len(kept[r]), "database"), nameList(kept[r]), r)
		}
		if len(dropped) > 0 {
			fmt.Fprintf(env.Stdout, "dropped the %s prepare created: %s%s\n", report.NounFor(len(dropped), "database"), nameList(dropped), suffix)
		}
	}
	for _, t := range ts {
		drop := t.Hooks().DropCreatedDatabase
		if drop == nil {
			continue
		}
		gone, why, err := drop(ctx)
		switch {
		case err != nil:
			say(", before the error below")
			return fmt.Errorf("%s: cleanup: drop the database prepare created: %w", t, err)
		case gone:
			dropped = append(dropped, t.String())
		case why != "":
			if kept[why] == nil {
				reasons = append(reasons, why)
			}
			kept[why] = append(kept[why], t.String())
		}
	}
	say("")
	return nil
}

// nameList joins names, the middle of a long list elided: "sbtest1,
// sbtest2, sbtest3, …, sbtest64 (64)".
func nameList(names []string) string {
	if len(names) <= 6 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, …, %s (%d)", strings.Join(names[:3], ", "), names[len(names)-1], len(names))
}

// Check runs the workload's consistency checks on every instance and prints
// each condition; it fails when any condition fails.
func Check(ctx context.Context, env *run.Env, w workload.Workload, ts []workload.Target) error {
	name := w.Meta().Name
	var failed []string
	err := eachInstance(ctx, ts, func(i, _ int, t workload.Target, in workload.Instance) error {
		fmt.Fprintf(env.Stdout, "checking %s for %s\n", t, name)
		check := in.Hooks().Check
		if check == nil {
			return fmt.Errorf("check: %s says it has consistency checks, but its instance %T has none", name, in)
		}
		results, err := check(ctx, observers.NewProgress(env.Out(), t.String()))
		if err != nil {
			return err
		}
		for _, r := range results {
			status := "ok    "
			switch {
			case r.Skipped != "":
				status = "skip  "
			case !r.Passed:
				status = "FAILED"
				failed = append(failed, fmt.Sprintf("%s on %s", r.Name, t))
			}
			fmt.Fprintf(env.Stdout, "  %s %s  %s", status, r.Name, r.Title)
			if r.Checked > 0 {
				fmt.Fprintf(env.Stdout, " (%d checked)", r.Checked)
			}
			fmt.Fprintln(env.Stdout)
			if r.Skipped != "" {
				fmt.Fprintf(env.Stdout, "         %s\n", r.Skipped)
			}
			for _, d := range r.Details {
				fmt.Fprintf(env.Stdout, "         %s\n", d)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed: %s", report.Plural(len(failed), "consistency condition"), strings.Join(failed, ", "))
	}
	fmt.Fprintf(env.Stdout, "all consistency conditions hold\n")
	return nil
}
