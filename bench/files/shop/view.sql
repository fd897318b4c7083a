-- A look at an item (30 %): one autocommit read.
\set iid random(1, 1000)
SELECT id, name, price FROM items WHERE id = :iid;
