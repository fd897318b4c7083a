package tpcc

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/workload"
)

// Stock-Level, clause 2.8.

// stockLevel runs a Stock-Level (clause 2.8.1 input, 2.8.2 profile): among
// the items of the terminal's district's last 20 orders, how many distinct
// ones are below a threshold drawn from [10, 20] in the home warehouse. It
// only reads.
func (v *vu) stockLevel(ctx context.Context, m workload.Meter) error {
	w, d := v.w, v.d
	threshold := v.src.Uniform(10, 20)
	if err := v.begin(ctx, false); err != nil {
		return err
	}
	var next int64
	if err := v.st.slDistrict.QueryRow(ctx, v.argv(w, d), &next); err != nil {
		return v.abort(ctx, fmt.Errorf("stock_level: district %d/%d: %w", w, d, err))
	}
	var low int64
	if err := v.st.slCount.QueryRow(ctx, v.argv(w, d, next, next-20, w, threshold), &low); err != nil {
		return v.abort(ctx, err)
	}
	return v.conn.Commit(ctx)
}
