package sqltext

import "strings"

// reserved are words that PostgreSQL, MySQL/MariaDB or SQLite reserve, so
// that a table, column or index of that name must be quoted in SQL.
var reserved = set(`ADD ALL ALTER ANALYZE AND ANY AS ASC BETWEEN BOTH BY CASE CAST CHECK COLLATE
	COLUMN CONSTRAINT CREATE CROSS CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DATABASE DEFAULT
	DELETE DESC DISTINCT DROP ELSE END EXCEPT EXISTS FALSE FETCH FOR FOREIGN FROM FULL GRANT GROUP HAVING IN
	INDEX INNER INSERT INTERSECT INTO IS JOIN KEY LEADING LEFT LIKE LIMIT NATURAL NOT NULL OFFSET ON OR ORDER
	OUTER PRIMARY REFERENCES RIGHT SELECT SET TABLE THEN TO TRAILING TRUE UNION UNIQUE UPDATE USER USING VALUES
	WHEN WHERE WITH`)

// Reserved reports whether word (any case) is reserved by PostgreSQL,
// MySQL/MariaDB or SQLite: a name that must be quoted wherever it stands.
func Reserved(word string) bool { return reserved[strings.ToUpper(word)] }

// ReservedPart returns the part of a table name (schema.table) that is a
// reserved word, or "".
func ReservedPart(name string) string {
	for part := range strings.SplitSeq(name, ".") {
		if Reserved(part) {
			return part
		}
	}
	return ""
}
