package observe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/htmeasure"
	"github.com/rightsize/rightsize/internal/topology"
)

// LoadHost reads a host's topology for plan --host: this machine's /sys
// (arg "auto"), or the YAML description in the file arg. A description
// that is not one is a usage error (exit 2); a file it cannot read, or a
// /sys, is not.
func LoadHost(env *Env, arg string) (topology.Host, error) {
	if arg == "auto" {
		if env.SysFS == nil {
			return topology.Host{}, errors.New("host: this machine's /sys is not available; describe the host in a file (--host host.yaml)")
		}
		memTotal, memErr := hostMemTotal(env)
		h, err := topology.FromSys(env.SysFS, memTotal)
		if err != nil {
			return h, fmt.Errorf("host: %w", err)
		}
		if memErr != nil {
			h.Notes = append(h.Notes, fmt.Sprintf("memory from sysfs only, not cross-checked with /proc/meminfo: %v", memErr))
		}
		if h.Name == "" {
			h.Name = env.Hostname
		}
		return h, nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return topology.Host{}, fmt.Errorf("host: %w", err)
	}
	defer f.Close()
	h, err := topology.Read(f, arg) // at most topology.MaxFileSize of it
	switch {
	case errors.Is(err, topology.ErrRead):
		return h, fmt.Errorf("host: %w", err)
	case err != nil:
		return h, usage{err}
	}
	return h, nil
}

// hostMemTotal is the kernel's MemTotal in bytes from env's /proc (0 and no
// error when there is no /proc to read).
func hostMemTotal(env *Env) (int64, error) {
	if env.ProcRoot == "" {
		return 0, nil
	}
	return host.MemTotal(env.ProcRoot)
}

// PlanHTGain measures the hyperthreading gain on this machine's cores
// (h.CoreCPUs: from LoadHost "auto"), 1 s a phase and 3 rounds, for plan
// --ht-gain measure: the gain in % and where it comes from, or def and why
// it was not measured (a host without siblings).
func PlanHTGain(ctx context.Context, h topology.Host, def float64) (float64, string, error) {
	res, err := htmeasure.Measure(ctx, h.CoreCPUs, time.Second, 3)
	switch {
	case err != nil:
		return 0, "", fmt.Errorf("ht-gain measure: %w", err)
	case res.Measured:
		return res.GainPct, fmt.Sprintf("measured on this machine, %d rounds, %.1f to %.1f %%", res.Rounds, res.MinPct, res.MaxPct), nil
	}
	return def, "default; not measured: " + res.Note, nil
}

// MeasureHT measures the hyperthreading gain on this machine's cores, d a
// phase and rounds rounds (measure ht).
func MeasureHT(ctx context.Context, env *Env, d time.Duration, rounds int) (htmeasure.Result, error) {
	if env.SysFS == nil {
		return htmeasure.Result{}, errors.New("measure ht: this machine's /sys is not available")
	}
	h, err := topology.FromSys(env.SysFS, 0) // CPUs only: memory plays no part
	if err != nil {
		return htmeasure.Result{}, fmt.Errorf("measure ht: %w", err)
	}
	res, err := htmeasure.Measure(ctx, h.CoreCPUs, d, rounds)
	if err != nil {
		return res, fmt.Errorf("measure ht: %w", err)
	}
	return res, nil
}
