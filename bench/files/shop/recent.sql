-- A customer's recent orders (20 %), the customer drawn as the checkout draws it.
\set cid random_zipfian(1, 10000, 1.1)
SELECT id, amount FROM orders WHERE customer_id = :cid ORDER BY id DESC LIMIT 10;
