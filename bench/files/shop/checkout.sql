-- The shop's checkout (half of its transactions): a customer drawn as
-- zipfian 1.1 (a few customers order most), an item, a quantity.
\set cid random_zipfian(1, 10000, 1.1)
\set iid random(1, 1000)
\set qty random(1, 5)
BEGIN;
SELECT balance FROM customers WHERE id = :cid;
SELECT price FROM items WHERE id = :iid;
UPDATE items SET stock = stock - :qty WHERE id = :iid;
INSERT INTO orders (customer_id, item_id, qty, amount) VALUES (:cid, :iid, :qty, :qty * 2.5);
UPDATE customers SET orders = orders + 1 WHERE id = :cid;
END;
