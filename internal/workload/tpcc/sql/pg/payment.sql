{{- /*
Payment (clause 2.5.2) in PL/pgSQL, rendered as the function rs_tpcc_payment and
the procedure rs_tpcc_payment_p (routines_sql.go says how). A customer id of 0
means by last name: v_c becomes the customer at position ceil(n/2) by c_first
among the n of the customer's district named p_last (clause 2.5.2.2).
*/ -}}
CREATE OR REPLACE {{.Routine "rs_tpcc_payment"}}(p_w integer, p_d integer, p_cw integer, p_cd integer, p_c integer,
	p_last text, p_amount numeric, p_date timestamp,
	{{.Out "customer_id integer"}}, {{.Out "balance numeric"}}, {{.Out "credit text"}}) LANGUAGE plpgsql AS $body$
DECLARE
	v_wname text; v_wstreet1 text; v_wstreet2 text; v_wcity text; v_wstate text; v_wzip text;
	v_dname text; v_dstreet1 text; v_dstreet2 text; v_dcity text; v_dstate text; v_dzip text;
	v_c integer := p_c; v_ids integer[];
	v_first text; v_middle text; v_clast text; v_street1 text; v_street2 text; v_city text; v_state text;
	v_zip text; v_phone text; v_since timestamp; v_credit text; v_lim numeric; v_disc numeric; v_bal numeric;
BEGIN
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
	IF v_c = 0 THEN
		SELECT array_agg(c_id ORDER BY c_first) INTO v_ids
			FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
		IF v_ids IS NULL THEN
			RAISE EXCEPTION 'rs_tpcc: payment: no customer named % in district %/%', p_last, p_cw, p_cd USING ERRCODE = 'no_data_found';
		END IF;
		v_c := v_ids[(cardinality(v_ids) + 1) / 2];
	END IF;
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
		VALUES (v_c, p_cd, p_cw, p_d, p_w, p_date, p_amount, v_wname || '    ' || v_dname);
	customer_id := v_c; balance := v_bal; credit := v_credit;
END
$body$
