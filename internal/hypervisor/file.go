package hypervisor

import (
	"errors"
	"fmt"
	"os"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// ReadFile reads the hypervisor export at path (rightsize import): format
// "csv" (rows of time, metric, value, ReadCSV) or esxtop's batch output
// (ReadESXTop), for the VM vm with vcpus vCPUs (0: counted from the file).
// A vCPU count the file contradicts is a usage error (exit 2,
// exitcode.Usage).
func ReadFile(path, format, vm string, vcpus int) (*Series, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	var s *Series
	if format == "csv" {
		s, err = ReadCSV(f, vm, vcpus)
	} else {
		s, err = ReadESXTop(f, vm, vcpus)
	}
	if errors.Is(err, ErrVCPUs) {
		return nil, exitcode.With(fmt.Errorf("import: %s: %w", path, err), exitcode.Usage)
	}
	if err != nil {
		return nil, fmt.Errorf("import: %s: %w", path, err)
	}
	return s, nil
}
