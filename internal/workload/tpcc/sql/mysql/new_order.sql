{{/*
New-Order (clause 2.4.2) as a MySQL/MariaDB stored procedure (routines_sql.go
says how the files are read). The lines arrive as comma-separated lists sorted
by supplying warehouse and item, with their line numbers, so that concurrent
New-Orders lock stock rows in one order; SUBSTRING_INDEX takes element v_i. An
unused item (clause 2.4.2.3) rolls back the work before it and returns
rolled_back = 1. The CASE on p_d picks the district's stock column.

Every procedure declares the same found flag and handlers: v_found is cleared
by the NOT FOUND handler when a SELECT ... INTO finds no row, and set again
before each one that is checked; the EXIT handler rolls back on any error, so
that a deadlock or a lock wait timeout leaves nothing open behind it.
*/}}
CREATE PROCEDURE rs_tpcc_new_order(IN p_w INT, IN p_d INT, IN p_c INT, IN p_entry DATETIME, IN p_n INT,
	IN p_num VARCHAR(64), IN p_item VARCHAR(128), IN p_supply VARCHAR(128), IN p_qty VARCHAR(64), IN p_all_local INT)
body: BEGIN
	DECLARE v_disc, v_wtax, v_dtax DECIMAL(4,4);
	DECLARE v_last VARCHAR(16);
	DECLARE v_credit CHAR(2);
	DECLARE v_o, v_i, v_num, v_item, v_supply, v_qty, v_sqty INT;
	DECLARE v_price DECIMAL(5,2);
	DECLARE v_name VARCHAR(24);
	DECLARE v_idata, v_sdata VARCHAR(50);
	DECLARE v_dist CHAR(24);
	DECLARE v_brand CHAR(1);
	DECLARE v_amount DECIMAL(6,2);
	DECLARE v_total DECIMAL(12,2) DEFAULT 0;
	DECLARE v_found INT DEFAULT 1;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	SELECT c_discount, c_last, c_credit, w_tax INTO v_disc, v_last, v_credit, v_wtax
		FROM customer, warehouse WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
	IF v_found = 0 THEN
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: new_order: the customer does not exist';
	END IF;
	SELECT d_next_o_id, d_tax INTO v_o, v_dtax FROM district WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
	UPDATE district SET d_next_o_id = v_o + 1 WHERE d_w_id = p_w AND d_id = p_d;
	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
		VALUES (v_o, p_d, p_w, p_c, p_entry, p_n, p_all_local);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
	SET v_i = 1;
	WHILE v_i <= p_n DO
		SET v_num = SUBSTRING_INDEX(SUBSTRING_INDEX(p_num, ',', v_i), ',', -1);
		SET v_item = SUBSTRING_INDEX(SUBSTRING_INDEX(p_item, ',', v_i), ',', -1);
		SET v_supply = SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', v_i), ',', -1);
		SET v_qty = SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', v_i), ',', -1);
		SET v_found = 1;
		SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = v_item;
		IF v_found = 0 THEN
			ROLLBACK;
			SELECT v_o AS order_id, 0 AS total, 1 AS rolled_back;
			LEAVE body;
		END IF;
		SELECT s_quantity, s_data, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END INTO v_sqty, v_sdata, v_dist
			FROM stock WHERE s_w_id = v_supply AND s_i_id = v_item FOR UPDATE;
		IF v_found = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: new_order: an item has no stock row in its supplying warehouse';
		END IF;
		UPDATE stock SET s_quantity = IF(v_sqty >= v_qty + 10, v_sqty - v_qty, v_sqty - v_qty + 91),
			s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + IF(v_supply = p_w, 0, 1)
			WHERE s_w_id = v_supply AND s_i_id = v_item;
		SET v_brand = IF(LOCATE('ORIGINAL', v_idata) > 0 AND LOCATE('ORIGINAL', v_sdata) > 0, 'B', 'G');
		SET v_amount = v_qty * v_price;
		SET v_total = v_total + v_amount;
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
			VALUES (v_o, p_d, p_w, v_num, v_item, v_supply, v_qty, v_amount, v_dist);
		SET v_i = v_i + 1;
	END WHILE;
	COMMIT;
	SELECT v_o AS order_id, v_total * (1 - v_disc) * (1 + v_wtax + v_dtax) AS total, 0 AS rolled_back;
END body
