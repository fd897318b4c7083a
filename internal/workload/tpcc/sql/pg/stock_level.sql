{{- /*
Stock-Level (clause 2.8.2) in PL/pgSQL, rendered as the function
rs_tpcc_stock_level and the procedure rs_tpcc_stock_level_p (routines_sql.go
says how).
*/ -}}
CREATE OR REPLACE {{.Routine "rs_tpcc_stock_level"}}(p_w integer, p_d integer, p_threshold integer,
	{{.Out "low_stock bigint"}}) LANGUAGE plpgsql AS $body$
DECLARE
	v_next integer; v_low bigint;
BEGIN
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'rs_tpcc: stock_level: district %/% does not exist', p_w, p_d USING ERRCODE = 'no_data_found';
	END IF;
	SELECT count(DISTINCT s_i_id) INTO v_low FROM order_line, stock
		WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
		AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
	low_stock := v_low;
END
$body$
