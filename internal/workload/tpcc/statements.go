package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rightsize/rightsize/internal/dialect"
)

// maxLines is the most order lines of a New-Order (clause 2.4.1.3: 5..15).
const maxLines = 15

// texts holds the statement texts built for a count of values (New-Order's
// items, stock rows and order lines, Delivery's districts), built once for
// the process: a thousand terminals share one copy of each text instead of
// holding one each. Its keys are a few hundred at most.
var texts sync.Map // textKey -> string

// textKey names a built text: the statement's kind, its count of values and
// the dialect's row-lock clause.
type textKey struct {
	kind, n   int
	forUpdate string
}

// Kinds of built text; Delivery's batched statement k is kindDelivery+k.
const (
	kindItems = iota
	kindStock
	kindStockUpdate
	kindLines
	kindDelivery
)

// text returns the text for k, building it on first use.
func text(k textKey, build func() string) string {
	if t, ok := texts.Load(k); ok {
		return t.(string)
	}
	t, _ := texts.LoadOrStore(k, build())
	return t.(string)
}

// statements are one terminal's prepared statements. The fixed ones are
// prepared with the terminal; those with a variable number of values (a
// New-Order's items, stock rows and order lines) on first use, one per count.
type statements struct {
	c   dialect.Conn
	all []*dialect.Stmt // every statement prepared, for close

	// New-Order (clause 2.4.2)
	noCustWare   dialect.Stmt
	noDistrict   dialect.Stmt
	noDistUpdate dialect.Stmt
	noOrder      dialect.Stmt
	noNewOrder   dialect.Stmt
	noItems      [maxLines + 1]dialect.Stmt // by number of distinct items
	noStock      [maxLines + 1]dialect.Stmt // by number of distinct items of one supplier
	noStockUpd   [maxLines + 1]dialect.Stmt // by number of distinct items of one supplier
	noLines      [maxLines + 1]dialect.Stmt // by number of order lines

	// Payment (clause 2.5.2)
	payWareUpdate dialect.Stmt
	payWare       dialect.Stmt
	payDistUpdate dialect.Stmt
	payDist       dialect.Stmt
	custByName    dialect.Stmt // shared with Order-Status
	payCust       dialect.Stmt
	payCustData   dialect.Stmt
	payCustUpdate dialect.Stmt
	payCustBC     dialect.Stmt
	payHistory    dialect.Stmt

	// Order-Status (clause 2.6.2)
	osCust  dialect.Stmt
	osOrder dialect.Stmt
	osLines dialect.Stmt

	// Delivery (clause 2.7.4)
	dlNewOrder    dialect.Stmt
	dlDelete      dialect.Stmt
	dlOrder       dialect.Stmt
	dlOrderUpdate dialect.Stmt
	dlLinesUpdate dialect.Stmt
	dlLinesSum    dialect.Stmt
	dlCustUpdate  dialect.Stmt

	dlOldest dialect.Stmt
	dlBatch  [numDl][districtsPerWarehouse + 1]dialect.Stmt // batched steps, by number of districts

	// Stock-Level (clause 2.8.2)
	slDistrict dialect.Stmt
	slCount    dialect.Stmt
}

// The statements' SQL. %s is the dialect's FOR UPDATE clause.
const (
	sqlNoCustWare = "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse " +
		"WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?"
	sqlNoDistrict   = "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ?%s"
	sqlNoDistUpdate = "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?"
	sqlNoOrder      = "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)"
	sqlNoNewOrder   = "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"
	sqlNoItems      = "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (%s)"
	sqlNoStock      = "SELECT s_i_id, s_quantity, s_data, CASE (? + 0) WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END FROM stock WHERE s_w_id = ? AND s_i_id IN (%s) ORDER BY s_i_id%s"
	// sqlNoStockUpdate updates the n stock rows of one supplier at once:
	// s_quantity = new value, the counters += increments, each as a CASE on
	// s_i_id (%[1]s is "WHEN ? THEN (? + 0)" n times; %[2]s the n ids).
	// "? + 0" makes PostgreSQL type the parameter as an integer (a bare
	// parameter in a CASE would be text), and unlike CAST(? AS INTEGER) it
	// is also accepted by MySQL 8, whose CAST knows only SIGNED.
	sqlNoStockUpdate = "UPDATE stock SET s_quantity = CASE s_i_id %[1]s END, s_ytd = s_ytd + CASE s_i_id %[1]s END, " +
		"s_order_cnt = s_order_cnt + CASE s_i_id %[1]s END, s_remote_cnt = s_remote_cnt + CASE s_i_id %[1]s END " +
		"WHERE s_w_id = ? AND s_i_id IN (%[2]s)"
	sqlNoLines = "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES %s"

	sqlPayWareUpdate = "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"
	sqlPayWare       = "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?"
	sqlPayDistUpdate = "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"
	sqlPayDist       = "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?"
	sqlCustByName    = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
	sqlPayCust       = "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance " +
		"FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?%s"
	sqlPayCustData   = "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?%s"
	sqlPayCustUpdate = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlPayCustBC     = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlPayHistory    = "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

	sqlOsCust  = "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlOsOrder = "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"
	sqlOsLines = "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"

	// sqlDlOldest finds each district's oldest new order with one MIN per
	// district, which every database answers from the primary key's first
	// entry (a GROUP BY over new_order would read all the warehouse's rows).
	sqlDlOldest      = "SELECT d_id, (SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) FROM district WHERE d_w_id = ? ORDER BY d_id"
	sqlDlNewOrder    = "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1%s"
	sqlDlDelete      = "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"
	sqlDlOrder       = "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"
	sqlDlOrderUpdate = "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"
	sqlDlLinesUpdate = "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
	sqlDlLinesSum    = "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
	sqlDlCustUpdate  = "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"

	sqlSlDistrict = "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"
	sqlSlCount    = "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock " +
		"WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?"
)

func (s *statements) prepare(ctx context.Context, c dialect.Conn, forUpdate string) error {
	s.c = c
	for _, p := range []struct {
		dst *dialect.Stmt
		sql string
	}{
		{&s.noCustWare, sqlNoCustWare},
		{&s.noDistrict, fmt.Sprintf(sqlNoDistrict, forUpdate)},
		{&s.noDistUpdate, sqlNoDistUpdate},
		{&s.noOrder, sqlNoOrder},
		{&s.noNewOrder, sqlNoNewOrder},
		{&s.payWareUpdate, sqlPayWareUpdate},
		{&s.payWare, sqlPayWare},
		{&s.payDistUpdate, sqlPayDistUpdate},
		{&s.payDist, sqlPayDist},
		{&s.custByName, sqlCustByName},
		{&s.payCust, fmt.Sprintf(sqlPayCust, forUpdate)},
		{&s.payCustData, fmt.Sprintf(sqlPayCustData, forUpdate)},
		{&s.payCustUpdate, sqlPayCustUpdate},
		{&s.payCustBC, sqlPayCustBC},
		{&s.payHistory, sqlPayHistory},
		{&s.osCust, sqlOsCust},
		{&s.osOrder, sqlOsOrder},
		{&s.osLines, sqlOsLines},
		{&s.dlOldest, sqlDlOldest},
		{&s.dlNewOrder, fmt.Sprintf(sqlDlNewOrder, forUpdate)},
		{&s.dlDelete, sqlDlDelete},
		{&s.dlOrder, sqlDlOrder},
		{&s.dlOrderUpdate, sqlDlOrderUpdate},
		{&s.dlLinesUpdate, sqlDlLinesUpdate},
		{&s.dlLinesSum, sqlDlLinesSum},
		{&s.dlCustUpdate, sqlDlCustUpdate},
		{&s.slDistrict, sqlSlDistrict},
		{&s.slCount, sqlSlCount},
	} {
		if _, err := s.lazy(ctx, p.dst, p.sql); err != nil {
			return err
		}
	}
	return nil
}

// items returns the item SELECT for n distinct ids.
func (s *statements) items(ctx context.Context, n int) (dialect.Stmt, error) {
	if st := s.noItems[n]; st != nil {
		return st, nil
	}
	q := text(textKey{kind: kindItems, n: n}, func() string { return fmt.Sprintf(sqlNoItems, placeholders(n)) })
	return s.lazy(ctx, &s.noItems[n], q)
}

// stock returns the stock SELECT ... FOR UPDATE for n distinct items of one
// supplying warehouse.
func (s *statements) stock(ctx context.Context, n int, forUpdate string) (dialect.Stmt, error) {
	if st := s.noStock[n]; st != nil {
		return st, nil
	}
	q := text(textKey{kindStock, n, forUpdate}, func() string { return fmt.Sprintf(sqlNoStock, placeholders(n), forUpdate) })
	return s.lazy(ctx, &s.noStock[n], q)
}

// delivery returns batched Delivery statement k over n districts.
func (s *statements) delivery(ctx context.Context, k, n int) (dialect.Stmt, error) {
	if st := s.dlBatch[k][n]; st != nil {
		return st, nil
	}
	q := text(textKey{kind: kindDelivery + k, n: n}, func() string { return deliverySQL(k, n) })
	return s.lazy(ctx, &s.dlBatch[k][n], q)
}

// stockUpdate returns the UPDATE of n stock rows of one supplier.
func (s *statements) stockUpdate(ctx context.Context, n int) (dialect.Stmt, error) {
	if s.noStockUpd[n] != nil {
		return s.noStockUpd[n], nil
	}
	q := text(textKey{kind: kindStockUpdate, n: n}, func() string {
		when := strings.TrimSuffix(strings.Repeat("WHEN ? THEN (? + 0) ", n), " ")
		return fmt.Sprintf(sqlNoStockUpdate, when, placeholders(n))
	})
	return s.lazy(ctx, &s.noStockUpd[n], q)
}

// lines returns the order-line INSERT of n rows.
func (s *statements) lines(ctx context.Context, n int) (dialect.Stmt, error) {
	if s.noLines[n] != nil {
		return s.noLines[n], nil
	}
	q := text(textKey{kind: kindLines, n: n}, func() string {
		row := "(" + placeholders(9) + ")"
		return fmt.Sprintf(sqlNoLines, strings.TrimSuffix(strings.Repeat(row+", ", n), ", "))
	})
	return s.lazy(ctx, &s.noLines[n], q)
}

func (s *statements) lazy(ctx context.Context, dst *dialect.Stmt, sql string) (dialect.Stmt, error) {
	if *dst != nil {
		return *dst, nil
	}
	st, err := s.c.Prepare(ctx, sql)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", sql, err)
	}
	*dst = st
	s.all = append(s.all, dst)
	return st, nil
}

// close closes every prepared statement.
func (s *statements) close() error {
	var errs []error
	for _, st := range s.all {
		if *st != nil {
			errs = append(errs, (*st).Close())
			*st = nil
		}
	}
	s.all = nil
	return errors.Join(errs...)
}
