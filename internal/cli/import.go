package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/sizing"
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
			case vcpus < 0 || vcpus > sizing.MaxVCPU:
				return usagef("import: --vcpus %d: want a count of vCPUs from 1 to %d", vcpus, sizing.MaxVCPU)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			s, err := app.ReadHypervisor(args[1], format, vm, vcpus)
			if err != nil {
				return wrapRun(err)
			}
			if into == "" {
				return app.SummarizeSeries(env.Stdout, s)
			}
			return wrapRun(app.ImportInto(env.Stdout, s, into))
		},
	}
	f := cmd.Flags()
	f.StringVar(&vm, "vm", "", "the VM's name on the host (esxtop's Group Cpu(ID:NAME)); with --format csv, a label")
	f.IntVar(&vcpus, "vcpus", 0, "the VM's vCPUs, by which esxtop's group figures are divided, for a file without vcpu worlds (default: counted from them; a different count is refused)")
	f.StringVar(&format, "format", "esxtop", "esxtop (batch output, perfmon CSV) or csv (rows of time, metric, value)")
	f.StringVar(&into, "into", "", "a sweep file (…-sweep.json) or a run's result file to align the samples to and rewrite with them")
	return cmd
}
