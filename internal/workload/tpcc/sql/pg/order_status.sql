{{- /*
Order-Status (clause 2.6.2) in PL/pgSQL, rendered as the function
rs_tpcc_order_status and the procedure rs_tpcc_order_status_p (routines_sql.go
says how). A customer id of 0 means by last name: v_c becomes the customer at
position ceil(n/2) by c_first among the n of the district named p_last (clause
2.6.2.2).
*/ -}}
CREATE OR REPLACE {{.Routine "rs_tpcc_order_status"}}(p_w integer, p_d integer, p_c integer, p_last text,
	{{.Out "customer_id integer"}}, {{.Out "balance numeric"}}, {{.Out "order_id integer"}}, {{.Out "line_count bigint"}}) LANGUAGE plpgsql AS $body$
DECLARE
	v_c integer := p_c; v_ids integer[];
	v_bal numeric; v_first text; v_middle text; v_clast text;
	v_o integer; v_carrier integer; v_entry timestamp;
	v_lines bigint := 0; v_qty bigint; v_amount numeric; v_delivered timestamp; v_item integer; v_supply integer;
BEGIN
	IF v_c = 0 THEN
		SELECT array_agg(c_id ORDER BY c_first) INTO v_ids
			FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
		IF v_ids IS NULL THEN
			RAISE EXCEPTION 'rs_tpcc: order_status: no customer named % in district %/%', p_last, p_w, p_d USING ERRCODE = 'no_data_found';
		END IF;
		v_c := v_ids[(cardinality(v_ids) + 1) / 2];
	END IF;
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
	END IF;
	customer_id := v_c; balance := v_bal; order_id := coalesce(v_o, 0); line_count := v_lines;
END
$body$
