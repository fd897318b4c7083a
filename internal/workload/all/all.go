package all

import (
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/fileio"
	"github.com/rightsize/rightsize/internal/workload/noop"
	"github.com/rightsize/rightsize/internal/workload/oltp"
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
		fileio.New(),
		noop.New(),
	}
}
