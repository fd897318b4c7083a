-- The made-up shop of bench/app_capture.sh: customers, items, and orders (the
-- history table, empty in the copy the replay runs on).
SET client_min_messages = warning;
DROP TABLE IF EXISTS orders, customers, items;
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, balance numeric(12,2) NOT NULL, orders int NOT NULL DEFAULT 0);
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL, stock int NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id int NOT NULL, item_id int NOT NULL, qty int NOT NULL, amount numeric(12,2) NOT NULL, created timestamptz NOT NULL DEFAULT now());
CREATE INDEX ON orders (customer_id);
INSERT INTO customers SELECT g, 'customer ' || g, 1000, 0 FROM generate_series(1, 10000) g;
INSERT INTO items SELECT g, 'item ' || g, 1 + (g % 50), 1000000 FROM generate_series(1, 1000) g;
ANALYZE;
