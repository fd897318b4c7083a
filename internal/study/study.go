package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/lineprob"
)

// ErrInvalid is wrapped by every error of a study file that cannot be run:
// it does not parse, or fails validation.
var ErrInvalid = exitcode.New("invalid study", exitcode.Usage)

// Scales a study is expanded at.
const (
	Small = "small" // fits a 2-core machine in a few minutes
	Full  = "full"  // the published study's sizes
)

// Scales are the scales in the order a scaled value lists them.
var Scales = []string{Small, Full}

// Problem is one thing wrong with a study file, at a line of it (0: none
// known).
type Problem = lineprob.Problem

// Error is every problem of a study file at once. It wraps ErrInvalid (its
// Kind).
type Error = lineprob.Error

// Value is an option's or an axis's value as written: one item or a list,
// the same at every scale or one per scale ({small: 5s, full: 300s}).
type Value struct {
	Line int
	// ByScale holds the items per scale; a value not written per scale has
	// the same items at both.
	ByScale map[string][]string
	List    bool // written as a list (its items joined by commas on the command line)
}

// At is the value's items at a scale.
func (v Value) At(scale string) []string { return v.ByScale[scale] }

// Option is a flag of run, sweep or the workload, named as on the command
// line without its dashes (time, table-size, think-time).
type Option struct {
	Name  string
	Line  int
	Value Value
}

// Stage is one sweep or run of a study.
type Stage struct {
	Name string // letters, digits, '-' and '_': in file names, labels and catalog keys
	Line int
	// Sweep is true for a sweep, false for a run.
	Sweep    bool
	Workload string
	// Config is the configuration under test ("" leaves run's default: the
	// label, else the target's host).
	Config string
	// Axis is the flag a sweep steps through (threads, rate, instances, or
	// a workload's own list such as fileio's read), Values its values.
	Axis     string
	AxisLine int
	Values   Value
	// Options are the study's options overridden by the step's, in the
	// order written.
	Options []Option
}

// Writes reports whether a file named name (in the study's directory) is
// one of the step's: <step>.json and <step>-* (a sweep's steps, its
// Markdown).
func (st Stage) Writes(name string) bool {
	return st.Name != "" && (strings.HasPrefix(name, st.Name+".") || strings.HasPrefix(name, st.Name+"-"))
}

// Sizing right-sizes a VM from a sweep step once it ran ('rightsize plan
// --from SWEEP --target-rate R --cpu-target C').
type Sizing struct {
	Line       int
	Stage      string
	TargetRate string  // events per second, or a multiple of the sweep's baseline (3x)
	CPUTarget  float64 // percent of the VM's CPU at the target rate
	// Verify checks the plan with a run: the plan step's workload at the
	// target rate, the database server held to the planned vCPUs (plan
	// --verify).
	Verify bool
}

// Report is the report written once every step ran.
type Report struct {
	Line   int
	Format string   // html, md, csv or text
	Path   string   // relative to the study's directory
	Stages []string // the steps it reports, in order
}

// Study is a parsed and validated study file.
type Study struct {
	Name    string
	Title   string
	Follows string // the published study it reproduces
	Stages  []Stage
	Sizing  *Sizing
	Report  Report
	// File and Digest are which study file it is: its absolute path
	// ("builtin:NAME" for a built-in protocol) and the SHA-256 of its
	// text, in hex. A study's record holds them, so that a study resumed
	// skips only the steps it recorded itself (sameAs).
	File, Digest string
}

// WorkloadParam is what a step names as its workload when the study drives
// the user's own (study run --workload FILE.yaml): app-rate's steps.
const WorkloadParam = "$workload"

// NeedsWorkload reports whether a step drives the user's workload
// (WorkloadParam), which study run's --workload names.
func (s *Study) NeedsWorkload() bool {
	return slices.ContainsFunc(s.Stages, func(st Stage) bool { return st.Workload == WorkloadParam })
}

// UseWorkload makes the steps that drive the user's workload drive the
// one arg names (a workload file, or a built-in workload's name). A study
// that needs one refuses none; one that drives its own workloads refuses
// one. Both errors wrap ErrInvalid: the command line's.
func (s *Study) UseWorkload(arg string) error {
	switch needs := s.NeedsWorkload(); {
	case needs && arg == "":
		return fmt.Errorf("%w: study %s drives your own workload: name it with --workload FILE.yaml (a workload file; 'rightsize capture' writes one from a production server, docs/capture.md)", ErrInvalid, s.Name)
	case !needs && arg != "":
		return fmt.Errorf("%w: --workload %s: study %s drives its own workloads (only a study whose steps name %s takes one, as app-rate does)", ErrInvalid, arg, s.Name, WorkloadParam)
	}
	for i := range s.Stages {
		if s.Stages[i].Workload == WorkloadParam {
			s.Stages[i].Workload = arg
		}
	}
	return nil
}

// StageByName returns the named step (nil: none).
func (s *Study) StageByName(name string) *Stage {
	for i := range s.Stages {
		if s.Stages[i].Name == name {
			return &s.Stages[i]
		}
	}
	return nil
}

// WithFlags adds flags (--name=value) to args, each in place of the same
// flag's earlier value, so that the command a study prints names each flag
// once, with the value that counts.
func WithFlags(args []string, flags ...string) []string {
	for _, f := range flags {
		name, _, _ := strings.Cut(f, "=")
		args = slices.DeleteFunc(args, func(a string) bool { return a == name || strings.HasPrefix(a, name+"=") })
		args = append(args, f)
	}
	return args
}
