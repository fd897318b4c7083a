package tpcc

import "fmt"

// The five transactions as MySQL/MariaDB stored procedures, for --in-server:
// each call starts and commits its own transaction and ends with one result
// row, so that a transaction is one round trip. Any error rolls the
// transaction back before it reaches the terminal (the EXIT handler), so
// that a deadlock or a lock wait timeout leaves nothing open behind it. New-Order's
// lines arrive as comma-separated lists sorted by supplying warehouse and
// item (with their line numbers), so that concurrent New-Orders lock stock
// rows in one order; an unused item rolls back the work before it and
// returns rolled_back = 1 (clause 2.4.2.3). v_found is cleared by the NOT
// FOUND handler when a SELECT ... INTO finds no row, and set again before
// each one that is checked.

// mysqlHandlers are every procedure's found flag and handlers.
const mysqlHandlers = `
	DECLARE v_found INT DEFAULT 1;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;`

// mysqlDist is the stock column of district p_d's s_dist_XX.
const mysqlDist = pgDist

// mysqlNth is element v_i of the comma-separated list %s.
func mysqlNth(list string) string {
	return "SUBSTRING_INDEX(SUBSTRING_INDEX(" + list + ", ',', v_i), ',', -1)"
}

// mysqlByName sets v_c to the id of the customer at position ceil(n/2) by
// c_first among the n of district (%[1]s, %[2]s) named p_last.
const mysqlByName = `
	IF p_c = 0 THEN
		SELECT COUNT(*) INTO v_n FROM customer WHERE c_w_id = %[1]s AND c_d_id = %[2]s AND c_last = p_last;
		IF v_n = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rs_tpcc: no customer of that last name in the district';
		END IF;
		SET v_off = (v_n + 1) DIV 2 - 1;
		SELECT c_id INTO v_c FROM customer WHERE c_w_id = %[1]s AND c_d_id = %[2]s AND c_last = p_last
			ORDER BY c_first LIMIT v_off, 1;
	ELSE
		SET v_c = p_c;
	END IF;`

var mysqlRoutines = []routine{
	{name: "rs_tpcc_new_order", create: `
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
	DECLARE v_total DECIMAL(12,2) DEFAULT 0;` + mysqlHandlers + `
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
		SET v_num = ` + mysqlNth("p_num") + `;
		SET v_item = ` + mysqlNth("p_item") + `;
		SET v_supply = ` + mysqlNth("p_supply") + `;
		SET v_qty = ` + mysqlNth("p_qty") + `;
		SET v_found = 1;
		SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = v_item;
		IF v_found = 0 THEN
			ROLLBACK;
			SELECT v_o AS order_id, 0 AS total, 1 AS rolled_back;
			LEAVE body;
		END IF;
		SELECT s_quantity, s_data, ` + mysqlDist + ` INTO v_sqty, v_sdata, v_dist
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
END body`},
	{name: "rs_tpcc_payment", create: `
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
	DECLARE v_disc DECIMAL(4,4);` + mysqlHandlers + `
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
	END IF;` + mysqlByNamePayment + `
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
END body`},
	{name: "rs_tpcc_order_status", create: `
CREATE PROCEDURE rs_tpcc_order_status(IN p_w INT, IN p_d INT, IN p_c INT, IN p_last VARCHAR(16))
body: BEGIN
	DECLARE v_c, v_n, v_off, v_o, v_carrier, v_item, v_supply INT;
	DECLARE v_lines, v_qty BIGINT DEFAULT 0;
	DECLARE v_bal, v_amount DECIMAL(12,2);
	DECLARE v_first, v_clast VARCHAR(16);
	DECLARE v_middle CHAR(2);
	DECLARE v_entry, v_delivered DATETIME;` + mysqlHandlers + `
	START TRANSACTION;` + mysqlByNameStatus + `
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
END body`},
	{name: "rs_tpcc_delivery", create: `
CREATE PROCEDURE rs_tpcc_delivery(IN p_w INT, IN p_carrier INT, IN p_date DATETIME)
body: BEGIN
	DECLARE v_d, v_o, v_c INT;
	DECLARE v_skipped INT DEFAULT 0;
	DECLARE v_total DECIMAL(12,2);` + mysqlHandlers + `
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
END body`},
	{name: "rs_tpcc_stock_level", create: `
CREATE PROCEDURE rs_tpcc_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT)
body: BEGIN
	DECLARE v_next, v_low INT;` + mysqlHandlers + `
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
END body`},
}

// The by-name lookups of Payment (the customer's warehouse and district)
// and Order-Status (the home ones).
var (
	mysqlByNamePayment = fmt.Sprintf(mysqlByName, "p_cw", "p_cd")
	mysqlByNameStatus  = fmt.Sprintf(mysqlByName, "p_w", "p_d")
)

// mysqlCalls are the statements that call the procedures, by transaction.
var mysqlCalls = [numTx]string{
	newOrder:    "CALL rs_tpcc_new_order(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	payment:     "CALL rs_tpcc_payment(?, ?, ?, ?, ?, ?, ?, ?)",
	orderStatus: "CALL rs_tpcc_order_status(?, ?, ?, ?)",
	delivery:    "CALL rs_tpcc_delivery(?, ?, ?)",
	stockLevel:  "CALL rs_tpcc_stock_level(?, ?, ?)",
}
