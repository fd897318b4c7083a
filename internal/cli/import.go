package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/hypervisor"
	"github.com/rightsize/rightsize/internal/plan"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/stored"
)

const importLong = `Import the hypervisor's view of the VM a run or sweep measured, and put it
beside the guest's own figures: the guest cannot see time it was not given.
esxtop's batch output (esxtop -b -d 5 -n N > host.csv on the ESXi host, or
resxtop) is read for the VM --vm names (its name on the host): its %USED,
%RDY (ready: it waited for a physical CPU), %CSTP (co-stop: a vCPU held
for its siblings), %MLMTD (held by a CPU limit) and %WAIT, per vCPU as
VMware's guidance reads them, and the host's physical CPU utilisation.

With --into, the samples are aligned by time to each step of a sweep file
(or to a run's result file) and the file is rewritten with them: the steps
table, the verdict and the HTML report then show host beside guest, and
the verdict names ready time or co-stop where they pass VMware's usual
thresholds. Without --into, the file's figures are summarised.

  rightsize import esxtop host.csv --vm DB01 --into results/ID-oltp_read_write-sweep.json

--format csv reads any other hypervisor's or cloud's export put in rows of
time (RFC 3339 or Unix seconds), metric, value, with the metrics
host_cpu_pct, used_pct, ready_pct, costop_pct, max_limited_pct and wait_pct
(the VM's per vCPU). Times must overlap the run's: esxtop writes the host's
clock, so keep it in step (NTP) with the load generator's.

The file is streamed: a line may be up to 8 MiB (esxtop's header of some
150,000 counters; 1 MiB in --format csv) and a file up to 524,288 samples
(30 days at 5 s); past either it is refused, so that a file that is not
one (or /dev/zero) fails at once instead of filling the memory.`

func importCommand(env *Env) *cobra.Command {
	var vm, format, into string
	var vcpus int
	cmd := &cobra.Command{
		Use:   "import esxtop FILE",
		Short: "Import the hypervisor's view (esxtop batch output) and align it to a sweep's steps",
		Long:  importLong,
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) != 2 || args[0] != "esxtop":
				return usagef("import: want 'import esxtop FILE' (esxtop batch output, or --format csv)")
			case format != "esxtop" && format != "csv":
				return usagef("import: --format %q: want esxtop or csv", format)
			case format == "esxtop" && strings.TrimSpace(vm) == "":
				return usagef("import esxtop: --vm NAME: name the VM as the host names it (its Group Cpu)")
			case vcpus < 0 || vcpus > plan.MaxVCPU:
				return usagef("import: --vcpus %d: want a count of vCPUs from 1 to %d", vcpus, plan.MaxVCPU)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			s, err := readHypervisor(args[1], format, vm, vcpus)
			if errors.Is(err, hypervisor.ErrVCPUs) {
				return usageError{err}
			}
			if err != nil {
				return runError{err}
			}
			if into == "" {
				return summarizeSeries(env.Stdout, s)
			}
			return wrapRun(importInto(env.Stdout, s, into))
		},
	}
	f := cmd.Flags()
	f.StringVar(&vm, "vm", "", "the VM's name on the host (esxtop's Group Cpu(ID:NAME)); with --format csv, a label")
	f.IntVar(&vcpus, "vcpus", 0, "the VM's vCPUs, by which esxtop's group figures are divided, for a file without vcpu worlds (default: counted from them; a different count is refused)")
	f.StringVar(&format, "format", "esxtop", "esxtop (batch output, perfmon CSV) or csv (rows of time, metric, value)")
	f.StringVar(&into, "into", "", "a sweep file (…-sweep.json) or a run's result file to align the samples to and rewrite with them")
	return cmd
}

// readHypervisor reads a hypervisor export.
func readHypervisor(path, format, vm string, vcpus int) (*hypervisor.Series, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	var s *hypervisor.Series
	if format == "csv" {
		s, err = hypervisor.ReadCSV(f, vm, vcpus)
	} else {
		s, err = hypervisor.ReadESXTop(f, vm, vcpus)
	}
	if err != nil {
		return nil, fmt.Errorf("import: %s: %w", path, err)
	}
	return s, nil
}

// summarizeSeries prints the file's span and its means over it.
func summarizeSeries(w io.Writer, s *hypervisor.Series) error {
	from, to := s.Span()
	return report.WriteHypervisorSeries(w, report.HypervisorSeries{Source: s.Source, VM: s.VM, VCPUs: s.VCPUs,
		Samples: len(s.Samples), From: from, To: to, Mean: s.Window(from, to)})
}

// importInto aligns the series to the steps of the sweep file at path, or
// to the run of the result file at path, and rewrites it.
func importInto(w io.Writer, s *hypervisor.Series, path string) error {
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
	if err := session.WriteSweep(path, an, sweepMarkdown); err != nil {
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
