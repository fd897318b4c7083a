{{- /*
Delivery (clause 2.7.4) in PL/pgSQL, rendered as the function rs_tpcc_delivery
and the procedure rs_tpcc_delivery_p (routines_sql.go says how); it returns how
many of the ten districts had no new order to deliver.
*/ -}}
CREATE OR REPLACE {{.Routine "rs_tpcc_delivery"}}(p_w integer, p_carrier integer, p_date timestamp,
	{{.Out "skipped integer"}}) LANGUAGE plpgsql AS $body$
DECLARE
	v_skipped integer; v_orders integer; v_customers integer;
BEGIN
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
	END IF;
	skipped := v_skipped;
END
$body$
