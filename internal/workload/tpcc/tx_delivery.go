package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
//
// The ten districts are done together: each step is one statement over all
// of them (7 round trips instead of 70). The oldest orders are found without
// locks and then deleted; if another terminal of the same warehouse delivered
// one of them meanwhile, fewer rows are deleted, and the transaction is
// rolled back and run district by district with locking reads instead (as it
// is for a warehouse that does not have exactly 10 districts).
func (v *vu) delivery(ctx context.Context, m workload.Meter) error {
	carrier := v.src.Uniform(1, 10)
	date := v.now()
	if err := v.begin(ctx, true); err != nil {
		return err
	}
	skipped, raced, err := v.deliverAll(ctx, carrier, date)
	if err == nil && raced {
		if err = v.conn.Rollback(ctx); err == nil {
			if err = v.begin(ctx, true); err == nil {
				skipped, err = v.deliverEach(ctx, carrier, date)
			}
		}
	}
	if err != nil {
		return v.abort(ctx, err)
	}
	if err := v.conn.Commit(ctx); err != nil {
		return v.abort(ctx, err)
	}
	m.Count(cntDeliverySkipped, skipped)
	return nil
}

// delivered is one district's oldest undelivered order.
type delivered struct {
	d, o, c int64
	amount  float64
}

// deliverAll delivers the ten districts' oldest orders with one statement per
// step. raced reports that another terminal took one of them first.
func (v *vu) deliverAll(ctx context.Context, carrier int64, date string) (skipped int64, raced bool, err error) {
	w := v.w
	ds := v.dl[:0]
	rows, err := v.st.dlOldest.Query(ctx, w)
	if err != nil {
		return 0, false, err
	}
	districts := 0
	for rows.Next() {
		var x delivered
		if err := rows.Scan(&x.d, &x.o); err != nil {
			rows.Close()
			return 0, false, err
		}
		districts++
		if x.o > 0 { // NULL (no new order) scans as 0
			ds = append(ds, x)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, false, err
	}
	v.dl = ds
	if districts != districtsPerWarehouse {
		// Not a TPC-C warehouse of 10 districts (another tool's data): the
		// district-by-district path copes with any.
		return 0, true, nil
	}
	skipped = districtsPerWarehouse - int64(len(ds))
	if len(ds) == 0 {
		return skipped, false, nil
	}
	n := len(ds)
	keys := func(first ...any) []any {
		args := append(v.args[:0], first...)
		for _, x := range ds {
			args = append(args, x.d, x.o)
		}
		return args
	}
	gone, err := v.deliveryExec(ctx, dlDelete, n, keys(w))
	if err != nil {
		return 0, false, err
	}
	if gone != int64(n) {
		return 0, true, nil
	}
	// Customers of the orders.
	if err := v.deliveryScan(ctx, dlOrders, n, keys(w), func(d, c int64, _ float64) { v.deliveredOf(d).c = c }); err != nil {
		return 0, false, err
	}
	if _, err := v.deliveryExec(ctx, dlOrdersUpdate, n, keys(carrier, w)); err != nil {
		return 0, false, err
	}
	if _, err := v.deliveryExec(ctx, dlLinesUpdate, n, keys(date, w)); err != nil {
		return 0, false, err
	}
	if err := v.deliveryScan(ctx, dlLinesSum, n, keys(w), func(d, _ int64, sum float64) { v.deliveredOf(d).amount = sum }); err != nil {
		return 0, false, err
	}
	// Customers: balance += the order's amount, one CASE per district.
	args := v.args[:0]
	for _, x := range ds {
		args = append(args, x.d, x.amount)
	}
	args = append(args, w)
	for _, x := range ds {
		args = append(args, x.d, x.c)
	}
	if k, err := v.deliveryExec(ctx, dlCustomers, n, args); err != nil {
		return 0, false, err
	} else if k != int64(n) {
		return 0, false, fmt.Errorf("delivery: %d customers credited, want %d", k, n)
	}
	return skipped, false, nil
}

// deliveryExec runs statement k of deliverAll for n districts.
func (v *vu) deliveryExec(ctx context.Context, k, n int, args []any) (int64, error) {
	st, err := v.st.delivery(ctx, k, n)
	if err != nil {
		return 0, err
	}
	return st.Exec(ctx, args...)
}

// deliveryScan runs statement k of deliverAll for n districts, which
// returns (district, integer or amount) rows, giving each to fn.
func (v *vu) deliveryScan(ctx context.Context, k, n int, args []any, fn func(d, n int64, amount float64)) error {
	st, err := v.st.delivery(ctx, k, n)
	if err != nil {
		return err
	}
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d int64
		var x float64
		if err := rows.Scan(&d, &x); err != nil {
			return err
		}
		fn(d, int64(x), x)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

func (v *vu) deliveredOf(d int64) *delivered {
	for i := range v.dl {
		if v.dl[i].d == d {
			return &v.dl[i]
		}
	}
	return &delivered{} // not asked for: ignored
}

// deliverEach delivers district by district with a locking read of each
// district's oldest new order, for when deliverAll raced another terminal.
func (v *vu) deliverEach(ctx context.Context, carrier int64, date string) (skipped int64, err error) {
	w := v.w
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		var oid int64
		err := v.st.dlNewOrder.QueryRow(ctx, v.argv(w, d), &oid)
		if errors.Is(err, dialect.ErrNoRows) {
			skipped++
			continue
		}
		if err != nil {
			return 0, err
		}
		n, err := v.st.dlDelete.Exec(ctx, w, d, oid)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			skipped++ // delivered meanwhile by another terminal of this warehouse
			continue
		}
		var cid int64
		if err := v.st.dlOrder.QueryRow(ctx, v.argv(w, d, oid), &cid); err != nil {
			return 0, fmt.Errorf("delivery: order %d/%d/%d: %w", w, d, oid, err)
		}
		if _, err := v.st.dlOrderUpdate.Exec(ctx, carrier, w, d, oid); err != nil {
			return 0, err
		}
		if _, err := v.st.dlLinesUpdate.Exec(ctx, date, w, d, oid); err != nil {
			return 0, err
		}
		var total float64
		if err := v.st.dlLinesSum.QueryRow(ctx, v.argv(w, d, oid), &total); err != nil {
			return 0, err
		}
		if _, err := v.st.dlCustUpdate.Exec(ctx, total, w, d, cid); err != nil {
			return 0, err
		}
	}
	return skipped, nil
}

// The batched Delivery statements, each over n (district, order) keys
// written as ORs of equalities on the primary key's columns, which every
// database turns into n index lookups (row-value IN lists are not
// optimised alike everywhere).
const (
	dlDelete = iota
	dlOrders
	dlOrdersUpdate
	dlLinesUpdate
	dlLinesSum
	dlCustomers
	numDl
)

var dlSQL = [numDl]string{
	dlDelete:       "DELETE FROM new_order WHERE no_w_id = ? AND (%s)",
	dlOrders:       "SELECT o_d_id, o_c_id FROM orders WHERE o_w_id = ? AND (%s)",
	dlOrdersUpdate: "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND (%s)",
	dlLinesUpdate:  "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND (%s)",
	dlLinesSum:     "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND (%s) GROUP BY ol_d_id",
	dlCustomers:    "UPDATE customer SET c_balance = c_balance + CASE c_d_id %s END, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND (%s)",
}

// dlKeys are the key columns each statement's ORs compare.
var dlKeys = [numDl][2]string{
	dlDelete:       {"no_d_id", "no_o_id"},
	dlOrders:       {"o_d_id", "o_id"},
	dlOrdersUpdate: {"o_d_id", "o_id"},
	dlLinesUpdate:  {"ol_d_id", "ol_o_id"},
	dlLinesSum:     {"ol_d_id", "ol_o_id"},
	dlCustomers:    {"c_d_id", "c_id"},
}

// deliverySQL returns statement k over n keys.
func deliverySQL(k, n int) string {
	or := strings.TrimSuffix(strings.Repeat("("+dlKeys[k][0]+" = ? AND "+dlKeys[k][1]+" = ?) OR ", n), " OR ")
	if k == dlCustomers {
		when := strings.TrimSuffix(strings.Repeat("WHEN ? THEN CAST(? AS DECIMAL(12,2)) ", n), " ")
		return fmt.Sprintf(dlSQL[k], when, or)
	}
	return fmt.Sprintf(dlSQL[k], or)
}
