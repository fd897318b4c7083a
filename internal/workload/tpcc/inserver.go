package tpcc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// rollbackMarker starts the message of the exception by which a PostgreSQL
// New-Order function rolls back on the unused item (a function cannot
// ROLLBACK; the exception undoes its work).
const rollbackMarker = "rs_tpcc_rollback"

// serverCalls are one terminal's prepared calls of the routines that run the
// transactions in the server (--in-server): one call, one round trip, per
// transaction. The terminal draws the inputs exactly as it does client-side.
type serverCalls struct {
	st [numTx]dialect.Stmt
	pg bool // PostgreSQL: lists as arrays, the rollback as an exception

	order []int     // New-Order's lines in locking order
	lists [4][]byte // New-Order's line numbers, items, suppliers, quantities
}

func (s *serverCalls) prepare(ctx context.Context, c dialect.Conn, d dialect.Dialect, kind string) error {
	calls := callsFor(d, kind)
	s.pg = d.Name() == "postgres"
	for t := range numTx {
		st, err := c.Prepare(ctx, calls[t])
		if err != nil {
			return fmt.Errorf("prepare %q: %w", calls[t], err)
		}
		s.st[t] = st
	}
	return nil
}

func (s *serverCalls) close() error {
	var errs []error
	for t, st := range s.st {
		if st != nil {
			errs = append(errs, st.Close())
			s.st[t] = nil
		}
	}
	return errors.Join(errs...)
}

// lineLists renders the order's lines, sorted by supplying warehouse and
// item (the order in which every New-Order locks stock rows, as client-side),
// as four lists: PostgreSQL array literals ({1,2}) or comma-separated ones.
// They are the calls' reused buffers, valid until the next lineLists (the
// dialects copy an argument into their message before the call returns).
func (s *serverCalls) lineLists(lines []orderLine) (nums, items, supply, qty []byte) {
	s.order = s.order[:0]
	for i := range lines {
		s.order = append(s.order, i)
	}
	slices.SortStableFunc(s.order, func(a, b int) int {
		return cmp.Or(cmp.Compare(lines[a].supply, lines[b].supply), cmp.Compare(lines[a].item, lines[b].item))
	})
	for k := range s.lists {
		b := s.lists[k][:0]
		if s.pg {
			b = append(b, '{')
		}
		for j, i := range s.order {
			if j > 0 {
				b = append(b, ',')
			}
			l := &lines[i]
			b = strconv.AppendInt(b, [...]int64{int64(i + 1), l.item, l.supply, l.qty}[k], 10)
		}
		if s.pg {
			b = append(b, '}')
		}
		s.lists[k] = b
	}
	return s.lists[0], s.lists[1], s.lists[2], s.lists[3]
}

// inServer runs transaction t as one call of its routine.
func (v *vu) inServer(ctx context.Context, t txType, m workload.Meter) error {
	switch t {
	case newOrder:
		return v.newOrderInServer(ctx, m)
	case payment:
		return v.paymentInServer(ctx, m)
	case orderStatus:
		return v.orderStatusInServer(ctx, m)
	case delivery:
		return v.deliveryInServer(ctx, m)
	}
	return v.stockLevelInServer(ctx, m)
}

// newOrderInServer runs a New-Order as one call. The rollback on the unused
// item (1 %) arrives as the routine's flag (MySQL) or exception (PostgreSQL)
// and counts as a completed New-Order, as client-side.
func (v *vu) newOrderInServer(ctx context.Context, m workload.Meter) error {
	s := v.calls
	w, d, cid, n, allLocal, remote, entry := v.drawNewOrder()
	intended := v.no.lines[n-1].item == unusedItem
	nums, items, supply, qty := s.lineLists(v.no.lines)
	var oid, rolledBack int64
	var total float64
	var err error
	args := v.argv(w, d, cid, entry, int64(n), nums, items, supply, qty, allLocal)
	if s.pg {
		args = v.argv(w, d, cid, entry, nums, items, supply, qty, allLocal)
	}
	err = s.st[newOrder].QueryRow(ctx, args, &oid, &total, &rolledBack)
	if err != nil && intended && strings.Contains(err.Error(), rollbackMarker) {
		err, rolledBack = nil, 1 // a function's rollback
	}
	switch {
	case err != nil:
		return fmt.Errorf("new_order: %w", err)
	case rolledBack != 0 && !intended:
		return fmt.Errorf("new_order: %w: the server rolled back order %d/%d/%d on a missing item", dialect.ErrNoRows, w, d, oid)
	case rolledBack != 0:
		m.Count(cntRollback, 1)
		return nil
	}
	m.Count(cntOrderLines, int64(n))
	m.Count(cntRemoteLines, remote)
	return nil
}

// paymentInServer runs a Payment as one call; a customer chosen by last
// name is found by the routine (customer id 0, the name given).
func (v *vu) paymentInServer(ctx context.Context, m workload.Meter) error {
	in := v.drawPayment()
	last := v.lastName(in.byName, in.nameNum)
	var cid int64
	var balance float64
	var credit string
	if err := v.calls.st[payment].QueryRow(ctx, v.argv(in.w, in.d, in.cw, in.cd, in.cid, last, in.amount, in.date),
		&cid, &balance, &credit); err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	in.count(m)
	return nil
}

// lastName is a routine's last-name argument: the name of nameNum when
// byName, else empty (the routine then takes the customer id). It is v.tbuf,
// valid until the terminal's next use of it.
func (v *vu) lastName(byName bool, nameNum int64) []byte {
	v.tbuf = v.tbuf[:0]
	if byName {
		v.tbuf = AppendLastName(v.tbuf, nameNum)
	}
	return v.tbuf
}

// orderStatusInServer runs an Order-Status as one call.
func (v *vu) orderStatusInServer(ctx context.Context, m workload.Meter) error {
	w, d, byName, cid, nameNum := v.drawOrderStatus()
	last := v.lastName(byName, nameNum)
	var oid, lines int64
	var balance float64
	if err := v.calls.st[orderStatus].QueryRow(ctx, v.argv(w, d, cid, last), &cid, &balance, &oid, &lines); err != nil {
		return fmt.Errorf("order_status: %w", err)
	}
	if byName {
		m.Count(cntStatusByName, 1)
	}
	return nil
}

// deliveryInServer runs a Delivery of the ten districts as one call, which
// returns how many districts had no undelivered order.
func (v *vu) deliveryInServer(ctx context.Context, m workload.Meter) error {
	carrier := v.src.Uniform(1, 10)
	var skipped int64
	if err := v.calls.st[delivery].QueryRow(ctx, v.argv(v.w, carrier, v.now()), &skipped); err != nil {
		return fmt.Errorf("delivery: %w", err)
	}
	m.Count(cntDeliverySkipped, skipped)
	return nil
}

// stockLevelInServer runs a Stock-Level as one call.
func (v *vu) stockLevelInServer(ctx context.Context, _ workload.Meter) error {
	threshold := v.src.Uniform(10, 20)
	var low int64
	if err := v.calls.st[stockLevel].QueryRow(ctx, v.argv(v.w, v.d, threshold), &low); err != nil {
		return fmt.Errorf("stock_level: %w", err)
	}
	return nil
}
