-- The shop of bench/app_capture.sh on MariaDB (SERVER=mariadb): the tables of
-- schema.sql in MySQL's types.

CREATE TABLE customers (id int PRIMARY KEY, name varchar(40) NOT NULL, balance decimal(12,2) NOT NULL, orders int NOT NULL DEFAULT 0);
CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL, price decimal(10,2) NOT NULL, stock int NOT NULL);
CREATE TABLE orders (id bigint AUTO_INCREMENT PRIMARY KEY, customer_id int NOT NULL, item_id int NOT NULL, qty int NOT NULL, amount decimal(12,2) NOT NULL, created timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, KEY (customer_id));
INSERT INTO customers WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 10000) SELECT n, CONCAT('customer ', n), 1000, 0 FROM g;
INSERT INTO items WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 1000) SELECT n, CONCAT('item ', n), 1 + n % 50, 1000000 FROM g;
ANALYZE TABLE customers, items, orders;
