package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// New-Order, clause 2.4.

// orderLine is one line of a New-Order's input and its result.
type orderLine struct {
	item, supply, qty int64
	price, amount     float64
	name, brand       string
	dist              string
}

// stockRow is a stock row read for update, with the changes the order's
// lines make to it.
type stockRow struct {
	w, i             int64
	qty              int64 // s_quantity after the order
	ytd, cnt, remote int64
	data, dist       string
	found            bool
}

// newOrderState holds a New-Order's reused buffers.
type newOrderState struct {
	lines  []orderLine
	ids    []int64       // distinct item ids
	items  map[int64]int // item id -> index into prices
	prices []itemRow
	stock  []stockRow
}

type itemRow struct {
	price      float64
	name, data string
}

// newOrder runs a New-Order (clause 2.4.1 input, 2.4.2 profile). The order's
// items are read with one SELECT, and its stock rows with one SELECT ... FOR
// UPDATE per supplying warehouse in (warehouse, item) order, so that
// concurrent New-Orders lock stock in one global order and cannot deadlock
// on it; each stock row is then updated once, with the sum of its lines'
// changes. An unused item id (1 % of orders, on the last line) rolls the
// transaction back after the work before it: that counts as a completed
// New-Order, not an error (clause 2.4.2.3).
func (v *vu) newOrder(ctx context.Context, m workload.Meter) error {
	s := &v.no
	w, d, cid, n, allLocal, remote, entry := v.drawNewOrder()

	if err := v.begin(ctx, true); err != nil {
		return err
	}
	var discount, wTax, dTax float64
	var cLast, cCredit string
	if err := v.st.noCustWare.QueryRow(ctx, v.argv(w, d, cid), &discount, &cLast, &cCredit, &wTax); err != nil {
		return v.abort(ctx, fmt.Errorf("new_order: customer %d/%d/%d: %w", w, d, cid, err))
	}
	var oid int64
	if err := v.st.noDistrict.QueryRow(ctx, v.argv(w, d), &oid, &dTax); err != nil {
		return v.abort(ctx, fmt.Errorf("new_order: district %d/%d: %w", w, d, err))
	}
	if _, err := v.st.noDistUpdate.Exec(ctx, oid+1, w, d); err != nil {
		return v.abort(ctx, err)
	}
	if _, err := v.st.noOrder.Exec(ctx, oid, d, w, cid, entry, int64(n), allLocal); err != nil {
		return v.abort(ctx, err)
	}
	if _, err := v.st.noNewOrder.Exec(ctx, oid, d, w); err != nil {
		return v.abort(ctx, err)
	}

	// Items: one SELECT for the distinct ids.
	s.ids = s.ids[:0]
	for _, l := range s.lines {
		if !slices.Contains(s.ids, l.item) {
			s.ids = append(s.ids, l.item)
		}
	}
	found, err := v.readItems(ctx)
	if err != nil {
		return v.abort(ctx, err)
	}
	if found < len(s.ids) {
		missing := v.missingItem()
		if missing != unusedItem {
			return v.abort(ctx, fmt.Errorf("new_order: %w: item %d does not exist", dialect.ErrNoRows, missing))
		}
		// The unused item: roll back (clause 2.4.2.3).
		if err := v.conn.Rollback(ctx); err != nil {
			return err
		}
		m.Count(cntRollback, 1)
		return nil
	}

	// Stock: read for update by supplier, in (warehouse, item) order.
	if err := v.readStock(ctx, d); err != nil {
		return v.abort(ctx, err)
	}
	total := v.takeStock(w)
	_ = total * (1 - discount) * (1 + wTax + dTax) // the total shown to the terminal
	if err := v.updateStock(ctx); err != nil {
		return v.abort(ctx, err)
	}
	if err := v.insertLines(ctx, oid, d, w); err != nil {
		return v.abort(ctx, err)
	}
	if err := v.conn.Commit(ctx); err != nil {
		return v.abort(ctx, err)
	}
	m.Count(cntOrderLines, int64(n))
	m.Count(cntRemoteLines, remote)
	return nil
}

// drawNewOrder draws a New-Order's input (clause 2.4.1): a district of the
// home warehouse, a customer, the lines (drawLines) and the entry date.
func (v *vu) drawNewOrder() (w, d, cid int64, n int, allLocal, remote int64, entry string) {
	w, d = v.w, v.src.Uniform(1, districtsPerWarehouse)
	cid = v.k.CustomerID(v.src)
	n, allLocal, remote = v.drawLines(w)
	return w, d, cid, n, allLocal, remote, v.now()
}

// drawLines draws the order's lines of home warehouse w into v.no.lines
// (clause 2.4.1): 5 to 15 of them, the last one the unused item in 1 % of
// the orders (the rollback), each supplied by another warehouse in 1 % of
// the lines when there is one. allLocal is 0 when a line is remote, and
// remote counts them.
func (v *vu) drawLines(w int64) (n int, allLocal, remote int64) {
	s := &v.no
	n = int(v.src.Uniform(5, maxLines))
	rollback := v.src.Uniform(1, 100) == 1
	s.lines = s.lines[:0]
	allLocal = 1
	for i := range n {
		l := orderLine{item: v.k.ItemID(v.src), supply: w, qty: v.src.Uniform(1, 10)}
		if i == n-1 && rollback {
			l.item = unusedItem
		}
		// 1 % of lines come from another warehouse (clause 2.4.1.5).
		if v.wares > 1 && v.src.Uniform(1, 100) == 1 {
			l.supply = v.otherWarehouse()
			allLocal = 0
			remote++
		}
		s.lines = append(s.lines, l)
	}
	return n, allLocal, remote
}

// takeStock takes each line's quantity from the stock read for it and
// prices the line (clause 2.4.2.2); it returns the order's total before
// discount and taxes. w is the home warehouse.
func (v *vu) takeStock(w int64) float64 {
	s := &v.no
	var total float64
	for i := range s.lines {
		l := &s.lines[i]
		it := s.prices[s.items[l.item]]
		st := v.stockOf(l.supply, l.item)
		// Clause 2.4.2.2: take the quantity, restocking by 91 when it would
		// fall under 10.
		if st.qty >= l.qty+10 {
			st.qty -= l.qty
		} else {
			st.qty = st.qty - l.qty + 91
		}
		st.ytd += l.qty
		st.cnt++
		if l.supply != w {
			st.remote++
		}
		l.price, l.name, l.dist = it.price, it.name, st.dist
		l.amount = float64(l.qty) * it.price
		l.brand = "G"
		if strings.Contains(it.data, original) && strings.Contains(st.data, original) {
			l.brand = "B"
		}
		total += l.amount
	}
	return total
}

// argv fills the VU's reused argument slice.
func (v *vu) argv(a ...any) []any { return append(v.args[:0], a...) }

// readItems reads the order's distinct items and returns how many exist.
func (v *vu) readItems(ctx context.Context) (int, error) {
	s := &v.no
	st, err := v.st.items(ctx, len(s.ids))
	if err != nil {
		return 0, err
	}
	args := v.args[:0]
	for _, id := range s.ids {
		args = append(args, id)
	}
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("new_order: items: %w", err)
	}
	if s.items == nil {
		s.items = make(map[int64]int, maxLines)
	}
	clear(s.items)
	s.prices = s.prices[:0]
	for rows.Next() {
		var id int64
		var it itemRow
		if err := rows.Scan(&id, &it.price, &it.name, &it.data); err != nil {
			rows.Close()
			return 0, err
		}
		if _, dup := s.items[id]; !dup {
			s.items[id] = len(s.prices)
			s.prices = append(s.prices, it)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return 0, err
	}
	return len(s.prices), rows.Close()
}

// missingItem returns the first of the order's item ids that readItems did
// not find.
func (v *vu) missingItem() int64 {
	for _, id := range v.no.ids {
		if _, ok := v.no.items[id]; !ok {
			return id
		}
	}
	return 0
}

// readStock reads the stock rows of the order's lines for update, one
// SELECT per supplying warehouse in warehouse order.
func (v *vu) readStock(ctx context.Context, d int64) error {
	s := &v.no
	s.stock = s.stock[:0]
	for _, l := range s.lines {
		if v.stockIndex(l.supply, l.item) < 0 {
			s.stock = append(s.stock, stockRow{w: l.supply, i: l.item})
		}
	}
	slices.SortFunc(s.stock, func(a, b stockRow) int {
		if a.w != b.w {
			return int(a.w - b.w)
		}
		return int(a.i - b.i)
	})
	return bySupplier(s.stock, func(group []stockRow) error { return v.readStockOf(ctx, d, group) })
}

// bySupplier calls fn for each run of rows with the same warehouse (rows
// sorted by warehouse), stopping at the first error.
func bySupplier(rows []stockRow, fn func(group []stockRow) error) error {
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && rows[hi].w == rows[lo].w {
			hi++
		}
		if err := fn(rows[lo:hi]); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// readStockOf reads the rows of group (one supplying warehouse, sorted by item).
func (v *vu) readStockOf(ctx context.Context, d int64, group []stockRow) error {
	st, err := v.st.stock(ctx, len(group), v.forUp)
	if err != nil {
		return err
	}
	args := append(v.args[:0], d, group[0].w)
	for _, r := range group {
		args = append(args, r.i)
	}
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return fmt.Errorf("new_order: stock: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i, qty int64
		var data, dist string
		if err := rows.Scan(&i, &qty, &data, &dist); err != nil {
			return err
		}
		for k := range group {
			if group[k].i == i {
				group[k].qty, group[k].data, group[k].dist, group[k].found = qty, data, dist, true
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range group {
		if !r.found {
			return fmt.Errorf("new_order: %w: no stock row for item %d in warehouse %d", dialect.ErrNoRows, r.i, r.w)
		}
	}
	return rows.Close()
}

func (v *vu) stockIndex(w, i int64) int {
	for k := range v.no.stock {
		if v.no.stock[k].w == w && v.no.stock[k].i == i {
			return k
		}
	}
	return -1
}

func (v *vu) stockOf(w, i int64) *stockRow { return &v.no.stock[v.stockIndex(w, i)] }

// updateStock writes the order's stock rows back, one UPDATE per supplying
// warehouse (s.stock is sorted by warehouse).
func (v *vu) updateStock(ctx context.Context) error {
	return bySupplier(v.no.stock, func(group []stockRow) error {
		st, err := v.st.stockUpdate(ctx, len(group))
		if err != nil {
			return err
		}
		args := v.args[:0]
		for _, col := range [...]func(r *stockRow) int64{
			func(r *stockRow) int64 { return r.qty },
			func(r *stockRow) int64 { return r.ytd },
			func(r *stockRow) int64 { return r.cnt },
			func(r *stockRow) int64 { return r.remote },
		} {
			for k := range group {
				args = append(args, group[k].i, col(&group[k]))
			}
		}
		args = append(args, group[0].w)
		for _, r := range group {
			args = append(args, r.i)
		}
		n, err := st.Exec(ctx, args...)
		if err != nil {
			return err
		}
		if n != int64(len(group)) {
			return fmt.Errorf("new_order: stock update of warehouse %d changed %d rows, want %d", group[0].w, n, len(group))
		}
		return nil
	})
}

// insertLines inserts the order's lines with one multi-row INSERT.
func (v *vu) insertLines(ctx context.Context, oid, d, w int64) error {
	s := &v.no
	st, err := v.st.lines(ctx, len(s.lines))
	if err != nil {
		return err
	}
	args := v.args[:0]
	for i, l := range s.lines {
		args = append(args, oid, d, w, int64(i+1), l.item, l.supply, l.qty, l.amount, l.dist)
	}
	_, err = st.Exec(ctx, args...)
	return err
}
