// Package hvimport is the import use case: a hypervisor's samples (read
// by package hypervisor) summarised, or aligned to the steps of a sweep
// file or to a run's result file, which is written again with them.
package hvimport

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/app/observers"
	"github.com/rightsize/rightsize/internal/hypervisor"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/stored"
)

// SummarizeSeries writes the series' span and its means over it.
func SummarizeSeries(w io.Writer, s *hypervisor.Series) error {
	from, to := s.Span()
	return report.WriteHypervisorSeries(w, report.HypervisorSeries{Source: s.Source, VM: s.VM, VCPUs: s.VCPUs,
		Samples: len(s.Samples), From: from, To: to, Mean: s.Window(from, to)})
}

// ImportInto aligns the series to the steps of the sweep file at path, or
// to the run of the result file at path, rewrites the file with it and
// writes what it aligned on w (import --into).
func ImportInto(w io.Writer, s *hypervisor.Series, path string) error {
	f, err := stored.ReadFile(path)
	switch {
	case err != nil:
		return fmt.Errorf("import --into: %w", err)
	case f.Sweep != nil:
		return importIntoSweep(w, s, path, f.Sweep)
	case f.Run == nil:
		return fmt.Errorf("import --into %s: neither a sweep file nor a result: a %s", path, f.What())
	}
	h, err := s.IntoRun(f.Run)
	if err != nil {
		return fmt.Errorf("import --into %s: %w", path, err)
	}
	if err := session.WriteResult(path, f.Run); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s\n", path, report.HypervisorFigures(h))
	return nil
}

// importIntoSweep aligns the series to each step of a sweep file (by the
// step's window, or for files that have none, its result file's), writes
// the sweep again with its analysis and report, and prints the steps.
func importIntoSweep(w io.Writer, s *hypervisor.Series, path string, sw *result.Sweep) error {
	a, err := s.IntoSweep(sw, func(st result.SweepStep) (time.Time, time.Time, error) { return stepWindow(path, st.Result) })
	switch {
	case errors.Is(err, hypervisor.ErrNoOverlap):
		return fmt.Errorf("import --into %s: %w", path, err)
	case err != nil:
		return fmt.Errorf("import --into: %w", err)
	}
	an := analysis.Analyze(sw, analysis.OptionsOf(sw))
	if err := session.WriteSweep(path, an, observers.SweepMarkdown); err != nil {
		return err
	}
	im := report.HypervisorImport{Path: path, VM: s.VM, Steps: a.Steps, Aligned: a.Aligned, Samples: len(s.Samples),
		None: a.None, NoHost: a.NoHost, GuestIsGenerator: !sw.HostIsServer}
	if err := report.WriteHypervisorImport(w, im); err != nil {
		return err
	}
	return report.SweepReport(w, an, report.Text)
}

// stepWindow reads a step's measured window from its result file, named as
// the sweep recorded it (relative to where it ran, or to the sweep file).
func stepWindow(sweepPath, resultPath string) (time.Time, time.Time, error) {
	if resultPath == "" {
		return time.Time{}, time.Time{}, errors.New("and no result file")
	}
	r, _, err := stored.ReadRun(resultPath, filepath.Join(filepath.Dir(sweepPath), filepath.Base(resultPath)))
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	from, to := r.Window()
	return from, to, nil
}
