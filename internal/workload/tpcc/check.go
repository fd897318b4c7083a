package tpcc

import (
	"context"

	"github.com/rightsize/rightsize/internal/workload"
)

// Check is a placeholder until the consistency checks land (being written now).
func (w *Workload) Check(ctx context.Context, in workload.Instance, p workload.Progress) ([]workload.CheckResult, error) {
	return nil, errTODO
}
