package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// Order-Status, clause 2.6.

// orderStatus runs an Order-Status (clause 2.6.1 input, 2.6.2 profile) from
// the client: a customer of the home warehouse, their last order and its
// lines. It only reads.
func (v *vu) orderStatus(ctx context.Context, m workload.Meter) error {
	w, d, byName, cid, nameNum := v.drawOrderStatus()
	if err := v.begin(ctx, false); err != nil {
		return err
	}
	if byName {
		var err error
		if cid, err = v.customerByName(ctx, w, d, nameNum); err != nil {
			return v.abort(ctx, err)
		}
	}
	var balance float64
	var first, middle, last string
	if err := v.st.osCust.QueryRow(ctx, v.argv(w, d, cid), &balance, &first, &middle, &last); err != nil {
		return v.abort(ctx, fmt.Errorf("order_status: customer %d/%d/%d: %w", w, d, cid, err))
	}
	var oid, carrier int64
	var entry string
	err := v.st.osOrder.QueryRow(ctx, v.argv(w, d, cid), &oid, &carrier, &entry)
	switch {
	case errors.Is(err, dialect.ErrNoRows):
		// A customer without orders cannot occur in a TPC-C database (every
		// customer has one from the load); accept it for other tools' data.
	case err != nil:
		return v.abort(ctx, err)
	default:
		rows, err := v.st.osLines.Query(ctx, w, d, oid)
		if err != nil {
			return v.abort(ctx, err)
		}
		for rows.Next() {
			var item, supply, qty int64
			var amount float64
			var delivered string
			if err := rows.Scan(&item, &supply, &qty, &amount, &delivered); err != nil {
				rows.Close()
				return v.abort(ctx, err)
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return v.abort(ctx, err)
		}
	}
	if err := v.conn.Commit(ctx); err != nil {
		return v.abort(ctx, err)
	}
	if byName {
		m.Count(cntStatusByName, 1)
	}
	return nil
}

// drawOrderStatus draws an Order-Status's input (clause 2.6.1): a district
// of the home warehouse and a customer, 60 % by last name (nameNum), 40 %
// by id (cid).
func (v *vu) drawOrderStatus() (w, d int64, byName bool, cid, nameNum int64) {
	w, d = v.w, v.src.Uniform(1, districtsPerWarehouse)
	byName = v.src.Uniform(1, 100) <= 60
	if byName {
		nameNum = v.k.LastNameNumber(v.src)
	} else {
		cid = v.k.CustomerID(v.src)
	}
	return w, d, byName, cid, nameNum
}
