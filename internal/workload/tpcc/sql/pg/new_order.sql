{{- /*
New-Order (clause 2.4.2) in PL/pgSQL, rendered as the function rs_tpcc_new_order
and the procedure rs_tpcc_new_order_p (routines_sql.go says how). The lines
arrive as arrays sorted by supplying warehouse and item, with their line
numbers, so that concurrent New-Orders lock stock rows in one order. The CASE
on p_d picks the district's stock column s_dist_01 .. s_dist_10.

"rollback" is the one text that differs between the forms, on the unused item
(clause 2.4.2.3): a function cannot roll back, so it raises an exception whose
message starts with rs_tpcc_rollback (rollbackMarker in inserver.go), which
undoes its work; a procedure rolls back and returns rolled_back = 1.
*/ -}}
{{define "rollback"}}{{if .Function}}RAISE EXCEPTION 'rs_tpcc_rollback: new_order: item % does not exist', p_item[i];{{else}}ROLLBACK;
			order_id := v_o; total := 0; rolled_back := 1;
			RETURN;{{end}}{{end -}}
CREATE OR REPLACE {{.Routine "rs_tpcc_new_order"}}(p_w integer, p_d integer, p_c integer, p_entry timestamp,
	p_num integer[], p_item integer[], p_supply integer[], p_qty integer[], p_all_local integer,
	{{.Out "order_id integer"}}, {{.Out "total numeric"}}, {{.Out "rolled_back integer"}}) LANGUAGE plpgsql AS $body$
DECLARE
	v_disc numeric; v_last text; v_credit text; v_wtax numeric; v_dtax numeric;
	v_o integer; v_n integer := cardinality(p_item); v_distinct integer; i integer;
	v_found integer; v_rows integer; v_brand integer;
	v_price numeric; v_name text; v_idata text; v_sdata text; v_dist text; v_amount numeric; v_total numeric := 0;
BEGIN
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
			RETURNING i.num, i.item, i.supply, i.qty, i.i_price, i.i_data, s_data, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist),
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
			{{template "rollback" .}}
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
				{{template "rollback" .}}
			END IF;
			UPDATE stock SET
				s_quantity = CASE WHEN s_quantity >= p_qty[i] + 10 THEN s_quantity - p_qty[i] ELSE s_quantity - p_qty[i] + 91 END,
				s_ytd = s_ytd + p_qty[i], s_order_cnt = s_order_cnt + 1,
				s_remote_cnt = s_remote_cnt + CASE WHEN p_supply[i] = p_w THEN 0 ELSE 1 END
				WHERE s_w_id = p_supply[i] AND s_i_id = p_item[i]
				RETURNING s_data, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END INTO v_sdata, v_dist;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'rs_tpcc: new_order: no stock row for item % in warehouse %', p_item[i], p_supply[i] USING ERRCODE = 'no_data_found';
			END IF;
			v_amount := p_qty[i] * v_price;
			v_total := v_total + v_amount;
			INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
				VALUES (v_o, p_d, p_w, p_num[i], p_item[i], p_supply[i], p_qty[i], v_amount, v_dist);
		END LOOP;
	END IF;
	order_id := v_o; total := v_total * (1 - v_disc) * (1 + v_wtax + v_dtax); rolled_back := 0;
END
$body$
