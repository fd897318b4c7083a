package tpcc

import (
	"context"
	"errors"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// Placeholder until the loader lands (being written now).
var errTODO = errors.New("tpcc: not implemented yet")

func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	return errTODO
}

func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) error { return errTODO }

// loadConstants returns the NURand constants prepare loaded the database
// with; ok is false when none is recorded (a database loaded by another tool).
func (in *instance) loadConstants(ctx context.Context, c dialect.Conn) (Constants, bool, error) {
	return Constants{}, false, nil
}
