package workfile

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// base is a valid file; cases append to it or replace it. Its lines:
//
//	1 name: t
//	2 tables:
//	3   - name: a
//	4     rows: 10
//	5     columns:
//	6       - {name: id, type: int, gen: {type: seq}}
//	7       - {name: v, type: int, gen: {type: int, min: 1, max: 9}}
//	8   - {name: prod, existing: true}
const base = `name: t
tables:
  - name: a
    rows: 10
    columns:
      - {name: id, type: int, gen: {type: seq}}
      - {name: v, type: int, gen: {type: int, min: 1, max: 9}}
  - {name: prod, existing: true}
`

// withTx is base with params (from line 10, after params: on line 9) and
// one transaction x whose statement is sql: on line 12 without params,
// 12 plus the params' lines and one with them.
func withTx(params, sql string) string {
	s := base
	if params != "" {
		s += "params:\n" + params
	}
	return s + "transactions:\n  - name: x\n    statements:\n      - " + sql + "\n"
}

type problemCase struct {
	name string
	yaml string
	line int
	msg  string // a part of the problem's message
}

var problemCases = []problemCase{
	// The file as a whole.
	{"empty", ``, 0, "empty: a workload file needs"},
	{"not yaml", "name: [t\n", 1, "not YAML"},
	{"two documents", base + "transactions: [{name: x, statements: [SELECT 1]}]\n---\nname: u\n", 10, "a second YAML document"},
	{"not a mapping", "- a\n- b\n", 1, "file: want a mapping"},
	{"unknown top key", base + "transaction: []\n", 9, `unknown key "transaction"`},
	{"name missing", "tables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 1, "name: missing"},
	{"bad name", "name: 'a b'\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 1, `name "a b": want`},
	{"version", "version: 2\n" + base + "transactions: [{name: x, statements: [SELECT 1]}]\n", 1, "version 2: this rightsize reads version 1"},
	{"tables missing", "name: t\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 1, "tables: missing"},
	{"transactions missing", base, 1, "transactions: missing"},
	{"transactions empty", base + "transactions: []\n", 9, "transactions: empty"},
	{"alias", "name: t\ntables: &t [{name: prod, existing: true}]\nparams:\n  p: *t\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 4, "alias *t: anchors and aliases are not supported"},
	{"dialect unknown", "name: t\ndialects: [postgres, oracle]\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, `no dialect "oracle"`},
	{"dialect mariadb", "name: t\ndialects: [mariadb]\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, "MariaDB runs the mysql dialect's SQL"},
	{"dialect twice", "name: t\ndialects: [mysql, mysql]\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, "mysql listed twice"},
	{"dialects empty", "name: 'bad name'\ndialects: []\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, "dialects: empty"},
	{"type for an unknown dialect", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - name: doc\n        type: {postgres: jsonb, mysql: json, sqlite: text, mssql: nvarchar}\n        null: true\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 7, `type: no dialect "mssql"`},
	{"think not a duration", base + "transactions:\n  - {name: x, think: soon, statements: [SELECT 1]}\n", 10, `think: want a duration`},
	{"autocommit not bool", base + "transactions:\n  - {name: x, autocommit: 1, statements: [SELECT 1]}\n", 10, `autocommit: want true or false`},
	{"baseline_rate zero", "name: t\nbaseline_rate: 0\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, "baseline_rate 0: want transactions per second per instance above 0"},
	{"baseline_rate negative", "name: t\nbaseline_rate: -5\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, "baseline_rate -5: want"},
	{"baseline_rate not a number", "name: t\nbaseline_rate: 10/s\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, `baseline_rate: want a number, not "10/s"`},
	{"allow_writes not bool", "name: t\nallow_writes: yes\ntables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 2, `allow_writes: want true or false, not "yes"`},

	// Tables.
	{"table name missing", "name: t\ntables:\n  - rows: 1\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 3, "table: name missing"},
	{"table twice", base + "  - {name: A, existing: true}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 9, "table A declared twice (first at line 3)"},
	{"table unknown key", "name: t\ntables:\n  - name: a\n    existing: true\n    row: 5\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 5, `unknown key "row"`},
	{"existing with rows", "name: t\ntables:\n  - name: a\n    existing: true\n    rows: 5\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 5, "table a is existing: it may not declare rows"},
	{"existing with columns", "name: t\ntables:\n  - name: a\n    existing: true\n    columns:\n      - {name: id, type: int, gen: {type: seq}}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 5, "it may not declare columns"},
	{"rows missing", "name: t\ntables:\n  - name: a\n    columns: [{name: id, type: int, gen: {type: seq}}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 3, "table a: rows missing"},
	{"rows negative", "name: t\ntables:\n  - name: a\n    rows: -1\n    columns: [{name: id, type: int, gen: {type: seq}}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 4, "rows -1: want 0 to"},
	{"rows not a number", "name: t\ntables:\n  - name: a\n    rows: many\n    columns: [{name: id, type: int, gen: {type: seq}}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 4, `rows: want an integer, not "many"`},
	{"created with schema", "name: t\ntables:\n  - name: s.a\n    rows: 1\n    columns: [{name: id, type: int, gen: {type: seq}}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 3, "named without a schema"},
	{"bad table name", "name: t\ntables:\n  - name: 'a-b'\n    existing: true\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 3, `table name "a-b": want`},
	{"columns missing", "name: t\ntables:\n  - name: a\n    rows: 1\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 3, "table a: columns missing"},
	{"column twice", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - {name: id, type: int, gen: {type: seq}}\n      - {name: ID, type: int, gen: {type: seq}}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 7, "column ID declared twice (first at line 6)"},
	{"column type missing", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - {name: id, gen: {type: seq}}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 6, "column id: type missing"},
	{"column type not portable", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - {name: id, type: jsonb, gen: {type: seq}}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 6, `type "jsonb" is not one rightsize knows on every dialect`},
	{"column type per dialect incomplete", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - name: doc\n        type: {postgres: jsonb, mysql: json}\n        null: true\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 7, "no type for sqlite"},
	{"column type per dialect bad", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - name: doc\n        type: {postgres: 'jsonb; DROP TABLE x', mysql: json, sqlite: text}\n        null: true\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 7, "want SQL type words"},
	{"column gen missing", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - {name: id, type: int}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 6, "gen missing (how prepare fills the column), or null: true"},
	{"column gen sample", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - {name: id, type: int, gen: {type: sample, column: a.id}}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 6, "a column cannot be a sample"},
	{"primary key unknown column", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns: [{name: id, type: int, gen: {type: seq}}]\n    primary_key: [nope]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 6, "primary_key: no column nope in table a"},
	{"index unknown column", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns: [{name: id, type: int, gen: {type: seq}}]\n    indexes:\n      - {name: ix, columns: [id, nope]}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 7, "no column nope in table a"},
	{"index name twice", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns: [{name: id, type: int, gen: {type: seq}}]\n    indexes:\n      - {name: ix, columns: [id]}\n      - {name: IX, columns: [id]}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 8, "index IX declared twice"},
	{"index columns missing", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns: [{name: id, type: int, gen: {type: seq}}]\n    indexes:\n      - {name: ix}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 7, "index ix: columns missing"},
	{"text key on mysql", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns: [{name: id, type: text, gen: {type: pattern, pattern: '###'}}]\n    primary_key: [id]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 5, "MySQL indexes text only by a prefix"},

	// Parameters.
	{"param type missing", withTx("  p: {min: 1}\n", "SELECT :p"), 10, "parameter p: type missing"},
	{"param type unknown", withTx("  p: {type: float}\n", "SELECT :p"), 10, `unknown type "float"`},
	{"param unknown key", withTx("  p: {type: int, min: 1, max: 2, mean: 3}\n", "SELECT :p"), 10, `unknown key "mean"`},
	{"param bad name", withTx("  p-q: {type: seq}\n", "SELECT 1"), 10, `parameter "p-q": want`},
	{"param twice", withTx("  p: {type: seq}\n  p: {type: seq}\n", "SELECT :p"), 11, "p declared twice (first at line 10)"},
	{"int min missing", withTx("  p: {type: int, max: 2}\n", "SELECT :p"), 10, "min missing"},
	{"int max below min", withTx("  p: {type: int, min: 5, max: 2}\n", "SELECT :p"), 10, "max 2 is below min 5"},
	{"int not integer", withTx("  p: {type: int, min: 1.5, max: 2}\n", "SELECT :p"), 10, `min: want an integer, not "1.5"`},
	{"dist unknown", withTx("  p: {type: int, min: 1, max: 2, dist: pareto}\n", "SELECT :p"), 10, `unknown distribution "pareto"`},
	{"gaussian parameter low", withTx("  p: {type: int, min: 1, max: 9, dist: gaussian, parameter: 1.5}\n", "SELECT :p"), 10, "gaussian parameter must be >= 2.0, got 1.5"},
	{"gaussian parameter missing", withTx("  p: {type: int, min: 1, max: 9, dist: gaussian}\n", "SELECT :p"), 10, "dist gaussian needs a parameter (>= 2.0"},
	{"exponential parameter zero", withTx("  p: {type: int, min: 1, max: 9, dist: exponential, parameter: 0}\n", "SELECT :p"), 10, "exponential parameter must be > 0"},
	{"zipfian parameter one", withTx("  p: {type: int, min: 1, max: 9, dist: zipfian, parameter: 1}\n", "SELECT :p"), 10, "zipfian parameter must be in (0, 1) or [1.001, 1000], got 1"},
	{"zipfian parameter too large", withTx("  p: {type: int, min: 1, max: 9, dist: zipfian, parameter: 2000}\n", "SELECT :p"), 10, "got 2000"},
	{"uniform with parameter", withTx("  p: {type: int, min: 1, max: 9, parameter: 2}\n", "SELECT :p"), 10, "parameter given, but dist is uniform"},
	{"parameter not a number", withTx("  p: {type: int, min: 1, max: 9, dist: zipfian, parameter: high}\n", "SELECT :p"), 10, `parameter: want a number, not "high"`},
	{"range too wide", withTx("  p: {type: int, min: 0, max: 9007199254740993, dist: exponential, parameter: 1}\n", "SELECT :p"), 10, "too wide for exponential"},
	{"decimal bad", withTx("  p: {type: decimal, min: 1e3, max: 2}\n", "SELECT :p"), 10, `want a decimal number such as 12.50`},
	{"decimal scale small", withTx("  p: {type: decimal, min: 1.25, max: 2, scale: 1}\n", "SELECT :p"), 10, "scale 1: want 2 to 9"},
	{"decimal too many decimals", withTx("  p: {type: decimal, min: 1.0123456789, max: 2}\n", "SELECT :p"), 10, "at most 9 decimals"},
	{"seq step zero", withTx("  p: {type: seq, step: 0}\n", "SELECT :p"), 10, "step 0 repeats one value"},
	{"choice values missing", withTx("  p: {type: choice}\n", "SELECT :p"), 10, "values missing"},
	{"choice values empty", withTx("  p: {type: choice, values: []}\n", "SELECT :p"), 10, "values empty"},
	{"choice weights zero", withTx("  p: {type: choice, values: [{value: a, weight: 0}]}\n", "SELECT :p"), 10, "every weight is 0"},
	{"choice weight negative", withTx("  p: {type: choice, values: [{value: a, weight: -2}, b]}\n", "SELECT :p"), 10, "weight -2 is negative"},
	{"choice value missing", withTx("  p: {type: choice, values: [{weight: 2}]}\n", "SELECT :p"), 10, "value missing"},
	{"pattern empty", withTx("  p: {type: pattern, pattern: ''}\n", "SELECT :p"), 10, "pattern empty"},
	{"pattern lone backslash", withTx("  p: {type: pattern, pattern: 'ab\\'}\n", "SELECT :p"), 10, "ends with a lone"},
	{"timestamp from missing", withTx("  p: {type: timestamp, to: 0s}\n", "SELECT :p"), 10, "from missing"},
	{"timestamp bad duration", withTx("  p: {type: timestamp, from: -3 weeks}\n", "SELECT :p"), 10, `want a duration such as 500ms`},
	{"timestamp from after to", withTx("  p: {type: timestamp, from: 1h, to: 0s}\n", "SELECT :p"), 10, "from 1h0m0s is after to 0s"},
	{"sample column bad", withTx("  p: {type: sample, column: id}\n", "SELECT :p"), 10, `column "id": want table.column`},
	{"sample unknown table", withTx("  p: {type: sample, column: nope.id}\n", "SELECT :p"), 10, "does not declare nope"},
	{"sample unknown column", withTx("  p: {type: sample, column: a.nope}\n", "SELECT :p"), 10, "table a has no column nope"},
	{"sample limit", withTx("  p: {type: sample, column: prod.id, limit: 0}\n", "SELECT :p"), 10, "limit 0: want 1 to"},
	{"seq after bad", withTx("  p: {type: seq, after: id}\n", "SELECT :p"), 10, `after "id": want table.column`},
	{"seq after unknown table", withTx("  p: {type: seq, after: nope.id}\n", "SELECT :p"), 10, "goes on after nope.id, but tables: does not declare nope"},
	{"seq after unknown column", withTx("  p: {type: seq, after: a.nope}\n", "SELECT :p"), 10, "goes on after a.nope, but table a has no column nope"},
	{"seq after in a column", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns:\n      - {name: id, type: int, gen: {type: seq, after: a.id}}\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 6, "after is for a parameter"},
	{"transaction named commit", base + "transactions: [{name: commit, statements: [SELECT 1]}]\n", 9, "transaction commit: the name is the result's own"},
	{"seq after down", withTx("  p: {type: seq, step: -1, after: prod.id}\n", "SELECT :p"), 10, "after goes past a column's highest value: it needs a step above 0"},

	// Transactions.
	{"tx name missing", base + "transactions:\n  - statements: [SELECT 1]\n", 10, "transaction: name missing"},
	{"tx twice", base + "transactions:\n  - {name: x, statements: [SELECT 1]}\n  - {name: x, statements: [SELECT 2]}\n", 11, "transaction x declared twice (first at line 10)"},
	{"tx unknown key", base + "transactions:\n  - {name: x, wait: 1s, statements: [SELECT 1]}\n", 10, `unknown key "wait"`},
	{"weight negative", base + "transactions:\n  - {name: x, weight: -1, statements: [SELECT 1]}\n", 10, "weight -1 is negative"},
	{"weights all zero", base + "transactions:\n  - {name: x, weight: 0, statements: [SELECT 1]}\n  - {name: y, weight: 0, statements: [SELECT 1]}\n", 10, "every weight is 0: nothing would run"},
	{"think negative", base + "transactions:\n  - {name: x, think: -1s, statements: [SELECT 1]}\n", 10, "think -1s is negative"},
	{"think_dist unknown", base + "transactions:\n  - {name: x, think: 1s, think_dist: normal, statements: [SELECT 1]}\n", 10, `think_dist "normal": want fixed or exponential`},
	{"think_dist without think", base + "transactions:\n  - {name: x, think_dist: exponential, statements: [SELECT 1]}\n", 10, "think_dist without think"},
	{"statements missing", base + "transactions:\n  - {name: x}\n", 10, "transaction x: statements missing"},
	{"statements empty", base + "transactions:\n  - name: x\n    statements: []\n", 11, "transaction x: statements empty"},
	{"statement unknown key", base + "transactions:\n  - name: x\n    statements:\n      - {sql: SELECT 1, returns: [a]}\n", 12, `unknown key "returns"`},
	{"statement named twice", base + "transactions:\n  - name: x\n    statements:\n      - {name: s, sql: SELECT 1}\n      - {name: s, sql: SELECT 2}\n", 13, "statement s named twice"},
	{"statement sql missing", base + "transactions:\n  - name: x\n    statements:\n      - {postgres: SELECT 1}\n", 12, "sql missing (and no variant for mysql, sqlite)"},
	{"variant oracle", base + "transactions:\n  - name: x\n    statements:\n      - {sql: SELECT 1, oracle: SELECT 1 FROM dual}\n", 12, `no dialect "oracle" for a variant`},
	{"variant mariadb", base + "transactions:\n  - name: x\n    statements:\n      - sql: SELECT 1\n        mariadb: SELECT 2\n", 13, "MariaDB runs the mysql dialect's SQL"},

	// SQL.
	{"unknown parameter", withTx("", "SELECT v FROM a WHERE id = :nope"), 12, "unknown parameter :nope"},
	{"parameter in literal block", base + "transactions:\n  - name: x\n    statements:\n      - |\n        SELECT v\n        FROM a\n        WHERE id = :nope\n", 15, "unknown parameter :nope"},
	{"bare question mark", withTx("", "SELECT v FROM a WHERE id = ?"), 12, "a bare ? is a placeholder"},
	{"dollar placeholder", withTx("", "SELECT v FROM a WHERE id = $1"), 12, "$1 is a placeholder"},
	{"two statements", withTx("", "SELECT 1; SELECT 2"), 12, "more than one statement"},
	{"unterminated string", withTx("", "\"SELECT 'abc\""), 12, "a string literal is not closed"},
	{"unterminated comment", withTx("", "SELECT 1 /* x"), 12, "a /* comment is not closed"},
	{"only a semicolon", withTx("", "';'"), 12, "no SQL"},
	{"create table", withTx("", "CREATE TABLE b (id int)"), 12, "CREATE is DDL, which a transaction may not run"},
	{"drop table", withTx("", "drop table a"), 12, "DROP is DDL"},
	{"truncate", withTx("", "TRUNCATE a"), 12, "TRUNCATE is DDL"},
	{"alter", withTx("", "ALTER TABLE a ADD c int"), 12, "ALTER is DDL"},
	{"grant", withTx("", "GRANT SELECT ON a TO bob"), 12, "GRANT is DDL"},
	{"rename", withTx("", "RENAME TABLE a TO b"), 12, "RENAME is DDL"},
	{"begin", withTx("", "BEGIN"), 12, "BEGIN is transaction control"},
	{"commit", withTx("", "COMMIT"), 12, "COMMIT is transaction control"},
	{"do block with drop", withTx("", "DO $$ BEGIN EXECUTE 'DROP TABLE a'; END $$"), 12, "the DO block contains DROP"},
	{"call with truncate", withTx("", "CALL run_sql('truncate a')"), 12, "a string passed to CALL contains TRUNCATE"},
	{"select into table", withTx("", "SELECT * INTO b FROM a"), 12, "SELECT ... INTO a table creates that table"},
	{"select into outfile", base + "dialects: [mysql]\ntransactions:\n  - name: x\n    statements:\n      - SELECT * FROM a INTO OUTFILE '/tmp/x'\n", 13, "writes a file on the database server"},
	{"write undeclared table", withTx("", "INSERT INTO b (id) VALUES (1)"), 12, "writes table b, which tables: does not declare"},
	{"update undeclared", withTx("", "UPDATE b SET v = 1"), 12, "writes table b"},
	{"delete undeclared", withTx("", "DELETE FROM b WHERE id = 1"), 12, "writes table b"},
	{"cte delete undeclared", withTx("", "WITH d AS (DELETE FROM b RETURNING id) SELECT count(*) FROM d"), 12, "writes table b"},
	{"control character", withTx("", "\"SELECT 1\\x01\""), 12, "control characters in SQL"},

	// Reserved words, which rightsize's own statements would use unquoted.
	{"table named select", "name: t\ntables:\n  - name: select\n    rows: 10\n    columns:\n      - {name: id, type: int, gen: {type: seq}}\n", 3, `table name "select": select is a reserved word of SQL`},
	{"column named order", "name: t\ntables:\n  - name: a\n    rows: 10\n    columns:\n      - {name: order, type: int, gen: {type: seq}}\n", 6, `column "order": a reserved word of SQL`},
	// Returned values (into).
	{"into used before", base + "transactions:\n  - name: x\n    statements:\n      - SELECT v FROM a WHERE id = :got\n      - {sql: SELECT id FROM a, into: [got]}\n", 12, "uses :got before statement 2 returns it"},
	{"into used by itself", base + "transactions:\n  - name: x\n    statements:\n      - {sql: 'SELECT id FROM a WHERE v = :got', into: [got]}\n", 12, "uses :got, which it returns itself"},
	{"into of another transaction", base + "transactions:\n  - name: x\n    statements:\n      - {sql: SELECT id FROM a, into: [got]}\n  - name: y\n    statements:\n      - SELECT v FROM a WHERE id = :got\n", 15, "returned by transaction x: a returned value lives only within its transaction"},
	{"into clashes with a parameter", withTx("  got: {type: seq}\n", "{sql: 'SELECT id FROM a WHERE id = :got', into: [got]}"), 14, "into got: a parameter of that name is declared"},
	{"into returned twice", base + "transactions:\n  - name: x\n    statements:\n      - {sql: SELECT id FROM a, into: [got]}\n      - {sql: SELECT v FROM a, into: [got]}\n", 13, "into got: statement x_1 already returns it"},
	{"into named twice", base + "transactions:\n  - name: x\n    statements:\n      - {sql: 'SELECT id, v FROM a', into: [got, got]}\n", 12, "into got named twice"},
	{"into fewer than the columns", base + "transactions:\n  - name: x\n    statements:\n      - {sql: 'SELECT id, v FROM a', into: [got]}\n", 12, "into names 1 (got), but the statement returns 2 columns"},
	{"into on a write that returns nothing", base + "transactions:\n  - name: x\n    statements:\n      - {sql: 'UPDATE a SET v = 1', into: [got]}\n", 12, "the statement returns 0 columns"},
}

func TestProblems(t *testing.T) {
	for _, c := range problemCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("no problem; want line %d: %s", c.line, c.msg)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			for _, p := range e.Problems {
				if p.Line == c.line && strings.Contains(p.Msg, c.msg) {
					return
				}
			}
			t.Errorf("want a problem at line %d containing %q; got:\n%v", c.line, c.msg, err)
		})
	}
}

type warningCase struct {
	name string
	yaml string
	line int
	msg  string
}

var warningCases = []warningCase{
	{"weight zero", base + "transactions:\n  - {name: x, statements: [SELECT 1]}\n  - {name: y, weight: 0, statements: [SELECT 1]}\n", 11, "transaction y: weight 0: it never runs"},
	{"unused parameter", withTx("  p: {type: seq}\n", "SELECT 1"), 10, "parameter p: no statement uses it"},
	{"variant for a dialect not run", "name: t\ndialects: [postgres]\n" + base[len("name: t\n"):] + "transactions:\n  - name: x\n    statements:\n      - {sql: SELECT 1, mysql: SELECT 2}\n", 13, "a mysql variant, but the file runs on postgres only"},
	{"random primary key", "name: t\ntables:\n  - name: a\n    rows: 1\n    columns: [{name: id, type: int, gen: {type: int, min: 1, max: 9}}]\n    primary_key: [id]\ntransactions: [{name: x, statements: [SELECT 1]}]\n", 5, "primary key id is drawn (int), not numbered"},
	{"call is opaque", withTx("", "CALL refresh(1)"), 0, ""},
	{"unknown statement", withTx("", "VACUUM a"), 12, "VACUUM statements are not recognized"},
}

func TestWarnings(t *testing.T) {
	for _, c := range warningCases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if c.msg == "" {
				if len(s.Warnings) > 0 {
					t.Errorf("warnings: %v", s.WarningLines())
				}
				return
			}
			for _, w := range s.Warnings {
				if w.Line == c.line && strings.Contains(w.Msg, c.msg) {
					return
				}
			}
			t.Errorf("want a warning at line %d containing %q; got %v", c.line, c.msg, s.WarningLines())
		})
	}
}

// TestProblemFormat checks the error's text: every problem as
// file:line: message, in line order.
func TestProblemFormat(t *testing.T) {
	_, err := Parse("w.yaml", []byte(withTx("  p: {type: int, min: 5, max: 2}\n", "SELECT :q")))
	if err == nil {
		t.Fatal("no error")
	}
	want := "w.yaml:10: parameter p: max 2 is below min 5\nw.yaml:14: transaction x, statement 1: unknown parameter :q (declare it under params:, or return it with into: from an earlier statement)"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
}

// TestLimits: a file declares a workload, not a schema dump: past the
// bounds, the rest is refused, with the line of the first item too many.
func TestLimits(t *testing.T) {
	stmts := base + "transactions:\n  - name: x\n    statements:\n" + strings.Repeat("      - SELECT 1\n", maxStatements+1)
	_, err := Parse("l.yaml", []byte(stmts))
	if want := "l.yaml:1012: transaction x: statements: more than 1000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d statements: %v, want %q", maxStatements+1, err, want)
	}
	var params strings.Builder
	for i := range maxParams + 1 {
		params.WriteString("  p" + strings.Repeat("x", i%7) + strconv.Itoa(i) + ": {type: seq}\n")
	}
	_, err = Parse("l.yaml", []byte(withTx(params.String(), "SELECT 1")))
	if want := "l.yaml:10010: params: more than 10000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d params: %v, want %q", maxParams+1, err, want)
	}
}

// TestEmptyTableNeedsNoGen: a created table of 0 rows (one the
// transactions fill) declares its columns without generators.
func TestEmptyTableNeedsNoGen(t *testing.T) {
	s, err := Parse("f.yaml", []byte("name: t\ntables:\n  - name: a\n    rows: 0\n    columns:\n      - {name: id, type: int}\n    primary_key: [id]\ntransactions: [{name: x, statements: ['INSERT INTO a (id) VALUES (1)']}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Tables[0].Columns[0]; c.Gen != nil {
		t.Errorf("column id: generator %+v, want none", c.Gen)
	}
}
