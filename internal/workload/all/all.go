package all

import (
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/custom"
	"github.com/rightsize/rightsize/internal/workload/fileio"
	"github.com/rightsize/rightsize/internal/workload/noop"
	"github.com/rightsize/rightsize/internal/workload/oltp"
	"github.com/rightsize/rightsize/internal/workload/pgbench"
	"github.com/rightsize/rightsize/internal/workload/randompoints"
	"github.com/rightsize/rightsize/internal/workload/tpcc"
)

// All returns every workload, freshly constructed with default options (each
// call returns new values, so flags bound on one do not leak into another).
func All() []workload.Workload {
	return []workload.Workload{
		oltp.NewReadWrite(),
		oltp.NewReadOnly(),
		oltp.NewWriteOnly(),
		oltp.NewPointSelect(),
		oltp.NewUpdateIndex(),
		oltp.NewUpdateNonIndex(),
		oltp.NewInsert(),
		oltp.NewDelete(),
		tpcc.New(),
		randompoints.New(),
		pgbench.New(),
		fileio.New(),
		noop.New(),
	}
}

// ByName returns a fresh workload of that name (nil when there is none).
func ByName(name string) workload.Workload {
	for _, w := range All() {
		if w.Meta().Name == name {
			return w
		}
	}
	return nil
}

// Lookup returns a fresh workload named by a command's argument: a
// built-in workload's name, or the path of a workload file
// (custom.Looks: it ends in .yaml or .yml, or holds a '/'), read and
// checked (a refused file's error wraps workfile.ErrInvalid and lists
// every problem with its line).
func Lookup(arg string) (workload.Workload, error) {
	if w := ByName(arg); w != nil {
		return w, nil
	}
	if custom.Looks(arg) {
		w, err := custom.Load(arg)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		if name := w.Meta().Name; ByName(name) != nil {
			return nil, fmt.Errorf("%w: %s: name: %s is a built-in workload's; give the file another name (its results would be read as the built-in's)", workfile.ErrInvalid, arg, name)
		}
		return w, nil
	}
	var names []string
	for _, w := range All() {
		names = append(names, w.Meta().Name)
	}
	return nil, fmt.Errorf("unknown workload %q (one of: %s; or a workload file, FILE.yaml)", arg, strings.Join(names, ", "))
}

// IsFile reports whether a command's workload argument is a workload
// file's path rather than a built-in workload's name.
func IsFile(arg string) bool { return ByName(arg) == nil && custom.Looks(arg) }

// Summarize computes the own figures of r's workload (its section and
// result.Figures, for the run and each instance) from r's generic data:
// after a merge of shards' results, or for a result written before
// workloads reported generic figures. A workload without figures of its
// own (no Hooks.Summarize) leaves r as it is; an unknown workload is an
// error.
func Summarize(r *result.Run) error {
	w := ByName(r.Workload)
	if w == nil {
		if r.WorkloadDigest != "" {
			return nil // a workload file's: no figures of its own
		}
		return fmt.Errorf("unknown workload %q", r.Workload)
	}
	if s := w.Hooks().Summarize; s != nil {
		return s(r)
	}
	return nil
}

// upgradeTypes gives a result written before results had transaction
// types (result.Summary.Types) its types: the operations its workload
// declares as types (workload.Op.Type) are marked so, by name, and the
// types derived from them. A workload file's result, whose operations its
// file declared, gets its event as its one type.
func upgradeTypes(r *result.Run) {
	if r == nil || len(r.Summary.Types) > 0 || len(r.Ops) == 0 {
		return
	}
	if w := ByName(r.Workload); w != nil {
		types := map[string]bool{}
		for _, op := range w.Meta().Ops {
			types[op.Name] = op.Type
		}
		mark := func(ops []result.Op) {
			for i := range ops[min(1, len(ops)):] { // ops[0] is the event
				ops[i+1].Type = types[ops[i+1].Name]
			}
		}
		mark(r.Ops)
		for i := range r.Instances {
			mark(r.Instances[i].Ops)
		}
	}
	r.DeriveTypes()
}

// Upgrade gives a result read from a file written before workloads reported
// generic figures (it has its workload's section but no result.Figures)
// those figures, computed again from its measurements, so that reports show
// what they showed for it then; the file's sections are kept as they are.
// Other results are left as they are, and so is one whose figures cannot be
// computed.
func Upgrade(r *result.Run) {
	upgradeTypes(r)
	if r == nil || r.Figures != nil || len(r.Section) == 0 {
		return
	}
	keep := make([][]byte, len(r.Instances))
	for i, in := range r.Instances {
		keep[i] = in.Section
	}
	section := r.Section
	if Summarize(r) != nil {
		return
	}
	r.Section = section
	for i := range r.Instances {
		r.Instances[i].Section = keep[i]
	}
}
