package pgbench

import (
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/internal/workload"
)

// LocalFiles returns the script files -f names, in their order, each read
// again (workload.ReadLocalFile): a run elsewhere gets their copies.
func (w *Workload) LocalFiles() ([]workload.LocalFile, error) {
	var out []workload.LocalFile
	var errs []error
	for _, arg := range w.files {
		path, _, err := splitWeight(arg)
		if err != nil {
			errs = append(errs, fmt.Errorf("--file %s: %w", arg, err))
			continue
		}
		data, err := workload.ReadLocalFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("--file %s: %w", arg, err))
			continue
		}
		out = append(out, workload.LocalFile{Flag: "file", Arg: arg, Path: path, Data: data})
	}
	return out, errors.Join(errs...)
}
