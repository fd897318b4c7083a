package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// Recorded is a run's or sweep's record in the catalog: its key, when it
// was recorded and from which file ("": none).
type Recorded struct {
	Key  string
	At   time.Time
	Path string
}

// ShownRun is a run as history show shows it: its record, the study and
// step that ran it ("" for none), the sweep it was a step of, and its
// targets with their servers (for results that do not name their servers
// themselves).
type ShownRun struct {
	Recorded
	Study, Step                  string
	Workload, SweepID, SweepStep string
	Targets, Servers             []string
	Run                          *result.Run
}

// WriteShownRun writes a run's record and its summary.
func WriteShownRun(w io.Writer, s ShownRun) error {
	ew := &errWriter{w: w}
	ew.printf("run %s, recorded %s%s\n", s.Key, s.At.Format(time.RFC3339), fromFile(s.Path))
	if s.Study != "" {
		// The study's step, less the sweep step its label ends with (said
		// on the next line): "step rate", not "step rate rate 2x".
		step := s.Step
		if s.SweepStep != "" && strings.HasSuffix(step, " "+s.SweepStep) {
			step = strings.TrimSuffix(step, " "+s.SweepStep)
		}
		ew.printf("study %s, step %s\n", s.Study, step)
	}
	if s.SweepID != "" {
		ew.printf("sweep step %q of sweep %s (history show %s-%s-sweep)\n", s.SweepStep, s.SweepID, s.SweepID, s.Workload)
	}
	if !recordsServer(s.Run) { // the summary names them otherwise
		for i, tg := range s.Targets {
			ew.printf("target: %s (%s)\n", tg, Distinct(s.Servers[i:min(i+1, len(s.Servers))]))
		}
	}
	if ew.err != nil {
		return ew.err
	}
	return Summary(w, s.Run)
}

// recordsServer reports a result that names its servers itself (written
// since server_product was recorded): its summary shows them.
func recordsServer(r *result.Run) bool {
	for _, in := range r.Instances {
		if in.ServerProduct != "" {
			return true
		}
	}
	return r.Machine != nil
}

func fromFile(path string) string {
	if path == "" {
		return ""
	}
	return " from " + path
}

// ShownSweep is a sweep as history show shows it: its record, the study
// that ran it, its configuration and its runs' servers, the sweep analysed
// again from its steps (as analyze and report do), and its runs in the
// catalog (Steps: each run's key and the step it was).
type ShownSweep struct {
	Recorded
	Study, Config string
	Servers       []string
	Sweep         *analysis.Result
	Steps         [][2]string
}

// WriteShownSweep writes a sweep's record, its report and its runs' keys.
func WriteShownSweep(w io.Writer, s ShownSweep) error {
	ew := &errWriter{w: w}
	ew.printf("sweep %s, recorded %s%s\n", s.Key, s.At.Format(time.RFC3339), fromFile(s.Path))
	ew.printf("%s\n\n", SweepLine(s.Study, s.Config, s.Servers))
	if ew.err != nil {
		return ew.err
	}
	if err := SweepReport(w, s.Sweep, Text); err != nil {
		return err
	}
	var keys []string
	for _, st := range s.Steps {
		keys = append(keys, fmt.Sprintf("  %s (%s)", st[0], st[1]))
	}
	if len(keys) > 0 {
		ew.printf("\nits runs in the catalog:\n%s\n", strings.Join(keys, "\n"))
	}
	return ew.err
}

// SweepLine is the line history show writes under a sweep's key: the study
// that ran it, its configuration and its runs' servers.
func SweepLine(study, config string, servers []string) string {
	s := "configuration " + orDash(config) + ", server " + Distinct(servers)
	if study != "" {
		s = "study " + study + ", " + s
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
