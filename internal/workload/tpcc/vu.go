package tpcc

import (
	"context"

	"github.com/rightsize/rightsize/internal/workload"
)

// runShared is what the VUs of one instance share during a run.
type runShared struct {
	c Constants
}

func (in *instance) NewVU(ctx context.Context, id int, seed uint64) (workload.VU, error) {
	return nil, errTODO
}
