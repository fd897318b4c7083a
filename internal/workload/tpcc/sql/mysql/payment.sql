{{/*
Payment (clause 2.5.2) as a MySQL/MariaDB stored procedure (routines_sql.go
says how the files are read; new_order.sql, what the handlers do). A customer
id of 0 means by last name: v_c becomes the customer at position ceil(n/2) by
c_first among the n of the customer's district (p_cw, p_cd) named p_last
(clause 2.5.2.2).
*/}}
CREATE PROCEDURE rs_tpcc_payment(IN p_w INT, IN p_d INT, IN p_cw INT, IN p_cd INT, IN p_c INT,
	IN p_last VARCHAR(16), IN p_amount DECIMAL(6,2), IN p_date DATETIME)
body: BEGIN
	DECLARE v_wname, v_dname VARCHAR(10);
	DECLARE v_wstreet1, v_wstreet2, v_wcity, v_dstreet1, v_dstreet2, v_dcity VARCHAR(20);
	DECLARE v_wstate, v_dstate CHAR(2);
	DECLARE v_wzip, v_dzip CHAR(9);
	DECLARE v_c, v_n, v_off INT;
	DECLARE v_first, v_clast VARCHAR(16);
	DECLARE v_middle CHAR(2);
	DECLARE v_street1, v_street2, v_city VARCHAR(20);
	DECLARE v_state CHAR(2);
	DECLARE v_zip CHAR(9);
	DECLARE v_phone CHAR(16);
	DECLARE v_since DATETIME;
	DECLARE v_credit CHAR(2);
	DECLARE v_lim, v_bal DECIMAL(12,2);
	DECLARE v_disc DECIMAL(4,4);
	DECLARE v_found INT DEFAULT 1;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
	SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip
		INTO v_wname, v_wstreet1, v_wstreet2, v_wcity, v_wstate, v_wzip FROM warehouse WHERE w_id = p_w;
	IF v_found = 0 THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: payment: the warehouse does not exist';
	END IF;
	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
	SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip
		INTO v_dname, v_dstreet1, v_dstreet2, v_dcity, v_dstate, v_dzip FROM district WHERE d_w_id = p_w AND d_id = p_d;
	IF v_found = 0 THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: payment: the district does not exist';
	END IF;
	IF p_c = 0 THEN
		SELECT COUNT(*) INTO v_n FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
		IF v_n = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: no customer of that last name in the district';
		END IF;
		SET v_off = (v_n + 1) DIV 2 - 1;
		SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last
			ORDER BY c_first LIMIT v_off, 1;
	ELSE
		SET v_c = p_c;
	END IF;
	SET v_found = 1;
	SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
			c_credit, c_credit_lim, c_discount, c_balance
		INTO v_first, v_middle, v_clast, v_street1, v_street2, v_city, v_state, v_zip, v_phone, v_since,
			v_credit, v_lim, v_disc, v_bal
		FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c FOR UPDATE;
	IF v_found = 0 THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: payment: the customer does not exist';
	END IF;
	IF v_credit = 'BC' THEN
		UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
			c_payment_cnt = c_payment_cnt + 1,
			c_data = LEFT(CONCAT(v_c, ' ', p_cd, ' ', p_cw, ' ', p_d, ' ', p_w, ' ', p_amount, ' | ', c_data), 500)
			WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
	ELSE
		UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
			c_payment_cnt = c_payment_cnt + 1
			WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
	END IF;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		VALUES (v_c, p_cd, p_cw, p_d, p_w, p_date, p_amount, CONCAT(v_wname, '    ', v_dname));
	COMMIT;
	SELECT v_c AS customer_id, v_bal - p_amount AS balance, v_credit AS credit;
END body
