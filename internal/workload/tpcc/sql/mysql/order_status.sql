{{/*
Order-Status (clause 2.6.2) as a MySQL/MariaDB stored procedure
(routines_sql.go says how the files are read; new_order.sql, what the handlers
do). A customer id of 0 means by last name: v_c becomes the customer at
position ceil(n/2) by c_first among the n of the district named p_last (clause
2.6.2.2).
*/}}
CREATE PROCEDURE rs_tpcc_order_status(IN p_w INT, IN p_d INT, IN p_c INT, IN p_last VARCHAR(16))
body: BEGIN
	DECLARE v_c, v_n, v_off, v_o, v_carrier, v_item, v_supply INT;
	DECLARE v_lines, v_qty BIGINT DEFAULT 0;
	DECLARE v_bal, v_amount DECIMAL(12,2);
	DECLARE v_first, v_clast VARCHAR(16);
	DECLARE v_middle CHAR(2);
	DECLARE v_entry, v_delivered DATETIME;
	DECLARE v_found INT DEFAULT 1;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	IF p_c = 0 THEN
		SELECT COUNT(*) INTO v_n FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
		IF v_n = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: no customer of that last name in the district';
		END IF;
		SET v_off = (v_n + 1) DIV 2 - 1;
		SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last
			ORDER BY c_first LIMIT v_off, 1;
	ELSE
		SET v_c = p_c;
	END IF;
	SET v_found = 1;
	SELECT c_balance, c_first, c_middle, c_last INTO v_bal, v_first, v_middle, v_clast
		FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
	IF v_found = 0 THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: order_status: the customer does not exist';
	END IF;
	SELECT o_id, o_carrier_id, o_entry_d INTO v_o, v_carrier, v_entry
		FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
	IF v_found = 1 THEN
		SELECT COUNT(*), SUM(ol_quantity), SUM(ol_amount), MAX(ol_delivery_d), MAX(ol_i_id), MAX(ol_supply_w_id)
			INTO v_lines, v_qty, v_amount, v_delivered, v_item, v_supply
			FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o;
	ELSE
		SET v_o = 0;
	END IF;
	COMMIT;
	SELECT v_c AS customer_id, v_bal AS balance, v_o AS order_id, v_lines AS line_count;
END body
