package tpcc

import (
	"fmt"
	"strings"
)

// The five transactions in PL/pgSQL, for --in-server, in two forms:
// functions (rs_tpcc_new_order, ...), each called by a SELECT in its implicit
// transaction, and procedures (rs_tpcc_new_order_p, ...) called with CALL,
// which return their results in INOUT parameters. Both have one body, with
// the same profile as the client-side transactions (clause 2.4.2, 2.5.2,
// 2.6.2, 2.7.4, 2.8.2); the terminal draws every input, as it does
// client-side. New-Order's lines arrive sorted by supplying warehouse and
// item (with their line numbers), so that concurrent New-Orders lock stock
// rows in one order. On the unused item (clause 2.4.2.3) a function raises
// an exception whose message starts with rollbackMarker, which undoes the
// transaction's work (a function cannot roll back); a procedure rolls back
// and returns rolled_back = 1.

// pgRoutine is one transaction's PL/pgSQL: its parameters, its result
// columns and the expressions that give them, its declarations and its body,
// in which {{rollback}} stands for the form's rollback.
type pgRoutine struct {
	name, params string
	outs         [][2]string // result column: name, type
	result       []string
	decl, body   string
}

// pgRollback is the rollback of each form.
var pgRollback = map[string]string{
	kindFunctions:  "RAISE EXCEPTION '" + rollbackMarker + ": new_order: item % does not exist', p_item[i];",
	kindProcedures: "ROLLBACK;\n\t\t\torder_id := v_o; total := 0; rolled_back := 1;\n\t\t\tRETURN;",
}

// sql returns the routine as a function or a procedure (kind). Both return
// their results in output parameters, assigned at the end of the body: a
// function's OUT parameters make its one result row, without a further
// query.
func (r pgRoutine) sql(kind string) string {
	body := strings.ReplaceAll(r.body, "{{rollback}}", pgRollback[kind])
	var cols, assign []string
	for i, o := range r.outs {
		assign = append(assign, o[0]+" := "+r.result[i]+";")
		if kind == kindFunctions {
			cols = append(cols, "OUT "+o[0]+" "+o[1])
		} else {
			cols = append(cols, "INOUT "+o[0]+" "+o[1]+" DEFAULT NULL")
		}
	}
	what, name := "FUNCTION", r.name
	if kind != kindFunctions {
		what, name = "PROCEDURE", r.name+"_p"
	}
	return fmt.Sprintf("CREATE OR REPLACE %s %s(%s,\n\t%s) LANGUAGE plpgsql AS $body$\nDECLARE%s\nBEGIN%s\n\t%s\nEND\n$body$",
		what, name, r.params, strings.Join(cols, ", "), r.decl, body, strings.Join(assign, " "))
}

// ident is the routine's identity in form kind, for DROP and
// to_regprocedure: its name and its input types (a procedure's INOUT
// results among them), rs_tpcc_delivery(integer, integer, timestamp).
func (r pgRoutine) ident(kind string) string {
	var types []string
	for _, p := range strings.Split(r.params, ",") {
		types = append(types, strings.Join(strings.Fields(p)[1:], " "))
	}
	name := r.name
	if kind != kindFunctions {
		name += "_p"
		for _, o := range r.outs {
			types = append(types, o[1])
		}
	}
	return name + "(" + strings.Join(types, ", ") + ")"
}

// call returns the statement that calls the routine in form kind.
func (r pgRoutine) call(kind string) string {
	marks := strings.TrimSuffix(strings.Repeat("?, ", strings.Count(r.params, ",")+1), ", ")
	if kind == kindFunctions {
		names := make([]string, len(r.outs))
		for i, o := range r.outs {
			names[i] = o[0]
		}
		return "SELECT " + strings.Join(names, ", ") + " FROM " + r.name + "(" + marks + ")"
	}
	return "CALL " + r.name + "_p(" + marks + strings.Repeat(", NULL", len(r.outs)) + ")"
}

// pgByName sets v_c, when it is 0, to the id of the customer at position
// ceil(n/2) by c_first among the n of district (w, d) named p_last (clause
// 2.5.2.2, 2.6.2.2); tx names the transaction in the error.
func pgByName(tx, w, d string) string {
	return fmt.Sprintf(`	IF v_c = 0 THEN
		SELECT array_agg(c_id ORDER BY c_first) INTO v_ids
			FROM customer WHERE c_w_id = %[2]s AND c_d_id = %[3]s AND c_last = p_last;
		IF v_ids IS NULL THEN
			RAISE EXCEPTION 'rs_tpcc: %[1]s: no customer named %% in district %%/%%', p_last, %[2]s, %[3]s USING ERRCODE = 'no_data_found';
		END IF;
		v_c := v_ids[(cardinality(v_ids) + 1) / 2];
	END IF;`, tx, w, d)
}

// pgDist is the stock column of district p_d's s_dist_XX.
const pgDist = `CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 ` +
	`WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END`

var pgRoutines = []pgRoutine{
	{name: "rs_tpcc_new_order", params: `p_w integer, p_d integer, p_c integer, p_entry timestamp,
	p_num integer[], p_item integer[], p_supply integer[], p_qty integer[], p_all_local integer`,
		outs:   [][2]string{{"order_id", "integer"}, {"total", "numeric"}, {"rolled_back", "integer"}},
		result: []string{"v_o", "v_total * (1 - v_disc) * (1 + v_wtax + v_dtax)", "0"},
		decl: `
	v_disc numeric; v_last text; v_credit text; v_wtax numeric; v_dtax numeric;
	v_o integer; v_n integer := cardinality(p_item); v_distinct integer; i integer;
	v_found integer; v_rows integer; v_brand integer;
	v_price numeric; v_name text; v_idata text; v_sdata text; v_dist text; v_amount numeric; v_total numeric := 0;`,
		body: `
	-- The order's header in one statement: the district's next order id,
	-- the order and its new-order row, the customer and the taxes; and how
	-- many distinct stock rows the lines take.
	WITH d AS (
		UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
			RETURNING d_next_o_id - 1 AS o_id, d_tax),
	o AS (
		INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
			SELECT d.o_id, p_d, p_w, p_c, p_entry, v_n, p_all_local FROM d),
	n AS (
		INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT d.o_id, p_d, p_w FROM d)
	SELECT c_discount, c_last, c_credit, w_tax, d.o_id, d.d_tax,
			(SELECT count(DISTINCT (u.supply, u.item)) FROM unnest(p_supply, p_item) AS u(supply, item))
		INTO v_disc, v_last, v_credit, v_wtax, v_o, v_dtax, v_distinct
		FROM d, customer, warehouse WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: new_order: district %/% or customer %/%/% does not exist', p_w, p_d, p_w, p_d, p_c USING ERRCODE = 'no_data_found';
	END IF;
	IF v_distinct = v_n THEN
		-- One statement prices the lines, takes their stock in the lines'
		-- order (sorted by supplier and item, so stock rows are locked in
		-- one order) and writes them. A missing item leaves its line out;
		-- the order is then rolled back below.
		WITH i AS (
			SELECT x.n, x.num, x.item, x.supply, x.qty, i_price, i_name, i_data
				FROM unnest(p_num, p_item, p_supply, p_qty) WITH ORDINALITY AS x(num, item, supply, qty, n)
				JOIN item ON i_id = x.item ORDER BY x.n),
		s AS (
			UPDATE stock SET
				s_quantity = CASE WHEN s_quantity >= i.qty + 10 THEN s_quantity - i.qty ELSE s_quantity - i.qty + 91 END,
				s_ytd = s_ytd + i.qty, s_order_cnt = s_order_cnt + 1,
				s_remote_cnt = s_remote_cnt + CASE WHEN i.supply = p_w THEN 0 ELSE 1 END
			FROM i WHERE s_w_id = i.supply AND s_i_id = i.item
			RETURNING i.num, i.item, i.supply, i.qty, i.i_price, i.i_data, s_data, ` + pgDist + ` AS dist),
		l AS (
			INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
				SELECT v_o, p_d, p_w, s.num, s.item, s.supply, s.qty, s.qty * s.i_price, s.dist FROM s
				RETURNING ol_amount)
		SELECT (SELECT count(*) FROM i), (SELECT count(*) FROM l), (SELECT sum(ol_amount) FROM l),
				(SELECT count(*) FROM s WHERE strpos(s.i_data, 'ORIGINAL') > 0 AND strpos(s.s_data, 'ORIGINAL') > 0)
			INTO v_found, v_rows, v_total, v_brand;
		IF v_found < v_n THEN
			SELECT min(x.n) INTO i FROM unnest(p_item) WITH ORDINALITY AS x(item, n)
				WHERE NOT EXISTS (SELECT FROM item WHERE i_id = x.item);
			{{rollback}}
		END IF;
		IF v_rows < v_n THEN
			RAISE EXCEPTION 'rs_tpcc: new_order: % of % lines have no stock row', v_n - v_rows, v_n USING ERRCODE = 'no_data_found';
		END IF;
	ELSE
		-- A stock row twice in the order: line by line, each taking the
		-- quantity from what the line before left.
		FOR i IN 1..v_n LOOP
			SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = p_item[i];
			IF NOT FOUND THEN
				{{rollback}}
			END IF;
			UPDATE stock SET
				s_quantity = CASE WHEN s_quantity >= p_qty[i] + 10 THEN s_quantity - p_qty[i] ELSE s_quantity - p_qty[i] + 91 END,
				s_ytd = s_ytd + p_qty[i], s_order_cnt = s_order_cnt + 1,
				s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] = p_w THEN 0 ELSE 1 END
				WHERE s_w_id = p_supply[i] AND s_i_id = p_item[i]
				RETURNING s_data, ` + pgDist + ` INTO v_sdata, v_dist;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'rs_tpcc: new_order: no stock row for item % in warehouse %', p_item[i], p_supply[i] USING ERRCODE = 'no_data_found';
			END IF;
			v_amount := p_qty[i] * v_price;
			v_total := v_total + v_amount;
			INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
				VALUES (v_o, p_d, p_w, p_num[i], p_item[i], p_supply[i], p_qty[i], v_amount, v_dist);
		END LOOP;
	END IF;`},
	{name: "rs_tpcc_payment", params: `p_w integer, p_d integer, p_cw integer, p_cd integer, p_c integer,
	p_last text, p_amount numeric, p_date timestamp`,
		outs:   [][2]string{{"customer_id", "integer"}, {"balance", "numeric"}, {"credit", "text"}},
		result: []string{"v_c", "v_bal", "v_credit"},
		decl: `
	v_wname text; v_wstreet1 text; v_wstreet2 text; v_wcity text; v_wstate text; v_wzip text;
	v_dname text; v_dstreet1 text; v_dstreet2 text; v_dcity text; v_dstate text; v_dzip text;
	v_c integer := p_c; v_ids integer[];
	v_first text; v_middle text; v_clast text; v_street1 text; v_street2 text; v_city text; v_state text;
	v_zip text; v_phone text; v_since timestamp; v_credit text; v_lim numeric; v_disc numeric; v_bal numeric;`,
		body: `
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
		RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip
		INTO v_wname, v_wstreet1, v_wstreet2, v_wcity, v_wstate, v_wzip;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: payment: warehouse % does not exist', p_w USING ERRCODE = 'no_data_found';
	END IF;
	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d
		RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip
		INTO v_dname, v_dstreet1, v_dstreet2, v_dcity, v_dstate, v_dzip;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: payment: district %/% does not exist', p_w, p_d USING ERRCODE = 'no_data_found';
	END IF;
` + pgByName("payment", "p_cw", "p_cd") + `
	-- The customer is read and updated by one statement; a customer with
	-- bad credit (BC) also gets the payment prepended to c_data.
	UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
			c_payment_cnt = c_payment_cnt + 1,
			c_data = CASE WHEN c_credit = 'BC' THEN substr(v_c || ' ' || p_cd || ' ' || p_cw || ' ' || p_d || ' ' || p_w || ' ' ||
				to_char(p_amount, 'FM999999990.00') || ' | ' || c_data, 1, 500) ELSE c_data END
		WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c
		RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
			c_credit, c_credit_lim, c_discount, c_balance
		INTO v_first, v_middle, v_clast, v_street1, v_street2, v_city, v_state, v_zip, v_phone, v_since,
			v_credit, v_lim, v_disc, v_bal;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: payment: customer %/%/% does not exist', p_cw, p_cd, v_c USING ERRCODE = 'no_data_found';
	END IF;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		VALUES (v_c, p_cd, p_cw, p_d, p_w, p_date, p_amount, v_wname || '    ' || v_dname);`},
	{name: "rs_tpcc_order_status", params: `p_w integer, p_d integer, p_c integer, p_last text`,
		outs:   [][2]string{{"customer_id", "integer"}, {"balance", "numeric"}, {"order_id", "integer"}, {"line_count", "bigint"}},
		result: []string{"v_c", "v_bal", "coalesce(v_o, 0)", "v_lines"},
		decl: `
	v_c integer := p_c; v_ids integer[];
	v_bal numeric; v_first text; v_middle text; v_clast text;
	v_o integer; v_carrier integer; v_entry timestamp;
	v_lines bigint := 0; v_qty bigint; v_amount numeric; v_delivered timestamp; v_item integer; v_supply integer;`,
		body: `
` + pgByName("order_status", "p_w", "p_d") + `
	SELECT c_balance, c_first, c_middle, c_last INTO v_bal, v_first, v_middle, v_clast
		FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: order_status: customer %/%/% does not exist', p_w, p_d, v_c USING ERRCODE = 'no_data_found';
	END IF;
	SELECT o_id, o_carrier_id, o_entry_d INTO v_o, v_carrier, v_entry
		FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
	IF FOUND THEN
		-- Every column the terminal shows is read, as the client-side reads the lines.
		SELECT count(*), sum(ol_quantity), sum(ol_amount), max(ol_delivery_d), max(ol_i_id), max(ol_supply_w_id)
			INTO v_lines, v_qty, v_amount, v_delivered, v_item, v_supply
			FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o;
	END IF;`},
	{name: "rs_tpcc_delivery", params: `p_w integer, p_carrier integer, p_date timestamp`,
		outs:   [][2]string{{"skipped", "integer"}},
		result: []string{"v_skipped"},
		decl: `
	v_skipped integer; v_orders integer; v_customers integer;`,
		body: `
	-- One statement delivers the oldest new order of each of the ten
	-- districts. Each is locked in district order (FOR UPDATE): one another
	-- terminal of this warehouse is delivering is waited for, and then
	-- passed over for the next (as a SELECT ... FOR UPDATE does), so a
	-- district is skipped only when it has no new order.
	WITH m AS MATERIALIZED (
		SELECT d, x.no_o_id AS oldest FROM generate_series(1, 10) AS d CROSS JOIN LATERAL (
			SELECT no_o_id FROM new_order WHERE no_w_id = p_w AND no_d_id = d ORDER BY no_o_id LIMIT 1 FOR UPDATE) AS x),
	n AS (
		DELETE FROM new_order USING m WHERE no_w_id = p_w AND no_d_id = m.d AND no_o_id = m.oldest
			RETURNING no_d_id, no_o_id),
	o AS (
		UPDATE orders SET o_carrier_id = p_carrier FROM n
			WHERE o_w_id = p_w AND o_d_id = n.no_d_id AND o_id = n.no_o_id
			RETURNING o_d_id, o_id, o_c_id),
	l AS (
		UPDATE order_line SET ol_delivery_d = p_date FROM n
			WHERE ol_w_id = p_w AND ol_d_id = n.no_d_id AND ol_o_id = n.no_o_id
			RETURNING ol_d_id, ol_o_id, ol_amount),
	c AS (
		UPDATE customer SET c_balance = c_balance + t.amount, c_delivery_cnt = c_delivery_cnt + 1
			FROM (SELECT o.o_d_id, o.o_c_id, coalesce(sum(l.ol_amount), 0) AS amount
					FROM o LEFT JOIN l ON l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id GROUP BY o.o_d_id, o.o_c_id) AS t
			WHERE c_w_id = p_w AND c_d_id = t.o_d_id AND c_id = t.o_c_id
			RETURNING c_id)
	SELECT 10 - (SELECT count(*) FROM n), (SELECT count(*) FROM o), (SELECT count(*) FROM c)
		INTO v_skipped, v_orders, v_customers;
	IF v_orders <> 10 - v_skipped OR v_customers <> v_orders THEN
		RAISE EXCEPTION 'rs_tpcc: delivery: warehouse %: % new orders, % orders, % customers', p_w, 10 - v_skipped, v_orders, v_customers USING ERRCODE = 'no_data_found';
	END IF;`},
	{name: "rs_tpcc_stock_level", params: `p_w integer, p_d integer, p_threshold integer`,
		outs:   [][2]string{{"low_stock", "bigint"}},
		result: []string{"v_low"},
		decl: `
	v_next integer; v_low bigint;`,
		body: `
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: stock_level: district %/% does not exist', p_w, p_d USING ERRCODE = 'no_data_found';
	END IF;
	SELECT count(DISTINCT s_i_id) INTO v_low FROM order_line, stock
		WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
		AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;`},
}
