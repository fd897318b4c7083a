package htmeasure

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/rightsize/rightsize/internal/topology"
)

// PlanGain measures the hyperthreading gain on the cores of h (its
// CoreCPUs: this machine's, from its /sys), 1 s a phase and 3 rounds, for
// plan --ht-gain measure: the gain in % and where it comes from, or def and
// why it was not measured (a host without siblings).
func PlanGain(ctx context.Context, h topology.Host, def float64) (float64, string, error) {
	res, err := Measure(ctx, h.CoreCPUs, time.Second, 3)
	switch {
	case err != nil:
		return 0, "", fmt.Errorf("ht-gain measure: %w", err)
	case res.Measured:
		return res.GainPct, fmt.Sprintf("measured on this machine, %d rounds, %.1f to %.1f %%", res.Rounds, res.MinPct, res.MaxPct), nil
	}
	return def, "default; not measured: " + res.Note, nil
}

// OnThisMachine measures the hyperthreading gain on the cores of the
// machine whose /sys is sys (nil: not available), d a phase and rounds
// rounds (measure ht).
func OnThisMachine(ctx context.Context, sys fs.FS, d time.Duration, rounds int) (Result, error) {
	if sys == nil {
		return Result{}, errors.New("measure ht: this machine's /sys is not available")
	}
	h, err := topology.FromSys(sys, 0) // CPUs only: memory plays no part
	if err != nil {
		return Result{}, fmt.Errorf("measure ht: %w", err)
	}
	res, err := Measure(ctx, h.CoreCPUs, d, rounds)
	if err != nil {
		return res, fmt.Errorf("measure ht: %w", err)
	}
	return res, nil
}
