package report

import (
	"io"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// HypervisorSeries is a hypervisor export as import summarises it: where
// from, which VM, its samples' span and their mean over it.
type HypervisorSeries struct {
	Source, VM     string
	VCPUs, Samples int
	From, To       time.Time
	Mean           *result.Hypervisor
}

// WriteHypervisorSeries writes the export's span and its means over it.
func WriteHypervisorSeries(w io.Writer, s HypervisorSeries) error {
	ew := &errWriter{w: w}
	ew.printf("%s: VM %q, %d vCPUs, %d samples from %s to %s UTC\n", s.Source, s.VM, s.VCPUs, s.Samples,
		s.From.UTC().Format(time.DateTime), s.To.UTC().Format(time.DateTime))
	ew.printf("mean: %s\n", HypervisorFigures(s.Mean))
	return ew.err
}

// HypervisorImport is what import --into did to a sweep file: how many of
// its steps it aligned the samples of VM to, those with no sample in their
// window (None) and with no guest figures (NoHost); GuestIsGenerator when
// the guest figures are the load generator's (the database ran elsewhere).
type HypervisorImport struct {
	Path, VM                string
	Steps, Aligned, Samples int
	None, NoHost            []string
	GuestIsGenerator        bool
}

// WriteHypervisorImport says what an import into a sweep file aligned.
func WriteHypervisorImport(w io.Writer, im HypervisorImport) error {
	ew := &errWriter{w: w}
	ew.printf("%s: %d of %d steps aligned with %d samples of VM %q\n", im.Path, im.Aligned, im.Steps, im.Samples, im.VM)
	if len(im.None) > 0 {
		ew.printf("no samples in the window of: %s\n", strings.Join(im.None, ", "))
	}
	if len(im.NoHost) > 0 {
		ew.printf("no guest figures to set the hypervisor's beside (not sampled there): %s\n", strings.Join(im.NoHost, ", "))
	}
	if im.GuestIsGenerator {
		ew.printf("note: the database ran on another host than the load generator: the guest figures beside VM %q's are the generator's\n", im.VM)
	}
	return ew.err
}
