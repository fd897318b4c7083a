{{/*
Stock-Level (clause 2.8.2) as a MySQL/MariaDB stored procedure (routines_sql.go
says how the files are read; new_order.sql, what the handlers do).
*/}}
CREATE PROCEDURE rs_tpcc_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT)
body: BEGIN
	DECLARE v_next, v_low INT;
	DECLARE v_found INT DEFAULT 1;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	IF v_found = 0 THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: stock_level: the district does not exist';
	END IF;
	SELECT COUNT(DISTINCT s_i_id) INTO v_low FROM order_line, stock
		WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
		AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
	COMMIT;
	SELECT v_low AS low_stock;
END body
