package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// Delivery, clause 2.7.

// delivery runs a Delivery (clause 2.7.1 input, 2.7.4 profile): for each of
// the home warehouse's 10 districts, the oldest undelivered order is
// delivered by carrier o_carrier_id — its new_order row deleted, its order
// and lines marked, its customer's balance credited — all in one database
// transaction. A district with no undelivered order is skipped and counted
// (clause 2.7.4.2). The spec lets Delivery run deferred, queued from the
// terminal; rightsize runs it inline, so its response time is the whole
// business transaction's.
func (v *vu) delivery(ctx context.Context, m workload.Meter) error {
	w := v.w
	carrier := v.src.Uniform(1, 10)
	date := v.now()
	if err := v.begin(ctx, true); err != nil {
		return err
	}
	skipped := int64(0)
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		var oid int64
		err := v.st.dlNewOrder.QueryRow(ctx, v.argv(w, d), &oid)
		if errors.Is(err, dialect.ErrNoRows) {
			skipped++
			continue
		}
		if err != nil {
			return v.abort(ctx, err)
		}
		n, err := v.st.dlDelete.Exec(ctx, w, d, oid)
		if err != nil {
			return v.abort(ctx, err)
		}
		if n == 0 {
			// Delivered meanwhile by another terminal of this warehouse.
			skipped++
			continue
		}
		var cid int64
		if err := v.st.dlOrder.QueryRow(ctx, v.argv(w, d, oid), &cid); err != nil {
			return v.abort(ctx, fmt.Errorf("delivery: order %d/%d/%d: %w", w, d, oid, err))
		}
		if _, err := v.st.dlOrderUpdate.Exec(ctx, carrier, w, d, oid); err != nil {
			return v.abort(ctx, err)
		}
		if _, err := v.st.dlLinesUpdate.Exec(ctx, date, w, d, oid); err != nil {
			return v.abort(ctx, err)
		}
		var total float64
		if err := v.st.dlLinesSum.QueryRow(ctx, v.argv(w, d, oid), &total); err != nil {
			return v.abort(ctx, err)
		}
		if _, err := v.st.dlCustUpdate.Exec(ctx, total, w, d, cid); err != nil {
			return v.abort(ctx, err)
		}
	}
	if err := v.conn.Commit(ctx); err != nil {
		return v.abort(ctx, err)
	}
	m.Count(cntDeliverySkipped, skipped)
	return nil
}
