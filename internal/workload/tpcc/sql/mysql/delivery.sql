{{/*
Delivery (clause 2.7.4) as a MySQL/MariaDB stored procedure (routines_sql.go
says how the files are read; new_order.sql, what the handlers do); it returns
how many of the ten districts had no new order to deliver.
*/}}
CREATE PROCEDURE rs_tpcc_delivery(IN p_w INT, IN p_carrier INT, IN p_date DATETIME)
body: BEGIN
	DECLARE v_d, v_o, v_c INT;
	DECLARE v_skipped INT DEFAULT 0;
	DECLARE v_total DECIMAL(12,2);
	DECLARE v_found INT DEFAULT 1;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	SET v_d = 1;
	WHILE v_d <= 10 DO
		SET v_found = 1;
		SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
		IF v_found = 0 THEN
			SET v_skipped = v_skipped + 1;
		ELSE
			DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
			IF ROW_COUNT() = 0 THEN
				SET v_skipped = v_skipped + 1;
			ELSE
				SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
				IF v_found = 0 THEN
					SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: delivery: a new order has no order row';
				END IF;
				UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
				UPDATE order_line SET ol_delivery_d = p_date WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
				SELECT SUM(ol_amount) INTO v_total FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
				UPDATE customer SET c_balance = c_balance + IFNULL(v_total, 0), c_delivery_cnt = c_delivery_cnt + 1
					WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
			END IF;
		END IF;
		SET v_d = v_d + 1;
	END WHILE;
	COMMIT;
	SELECT v_skipped AS skipped;
END body
