package dbtarget

import (
	"context"

	"github.com/rightsize/rightsize/internal/workload/objects"
)

// DropCreatedDatabase drops the target's database when prepare created it
// and it holds nothing else now (objects.DropCreatedDatabase); kept says why
// one prepare created was kept. cleanup calls it after the workload's
// Cleanup, with the instance closed.
func (t *DB) DropCreatedDatabase(ctx context.Context) (dropped bool, kept string, err error) {
	return objects.DropCreatedDatabase(ctx, t.D, t.T)
}
