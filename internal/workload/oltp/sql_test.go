package oltp

import (
	"strings"
	"testing"

	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
)

// The statements are sysbench 1.0's stmt_defs (oltp_common.lua), byte for byte.
func TestStatementSQL(t *testing.T) {
	want := map[op]string{
		opPointSelect:    "SELECT c FROM sbtest3 WHERE id=?",
		opSimpleRange:    "SELECT c FROM sbtest3 WHERE id BETWEEN ? AND ?",
		opSumRange:       "SELECT SUM(k) FROM sbtest3 WHERE id BETWEEN ? AND ?",
		opOrderRange:     "SELECT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c",
		opDistinctRange:  "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c",
		opIndexUpdate:    "UPDATE sbtest3 SET k=k+1 WHERE id=?",
		opNonIndexUpdate: "UPDATE sbtest3 SET c=? WHERE id=?",
		opDelete:         "DELETE FROM sbtest3 WHERE id=?",
		opInsert:         "INSERT INTO sbtest3 (id, k, c, pad) VALUES (?, ?, ?, ?)",
	}
	for o, w := range want {
		if got := statementSQL(o, 3, false); got != w {
			t.Errorf("%s: %q, want %q", opDefs[o].name, got, w)
		}
	}
	if got := statementSQL(opInsert, 12, true); got != "INSERT INTO sbtest12 (k, c, pad) VALUES (?, ?, ?)" {
		t.Errorf("auto-inc insert: %q", got)
	}
	if got := createIndexSQL(7); got != "CREATE INDEX k_7 ON sbtest7(k)" {
		t.Errorf("index: %q", got)
	}
}

// TestCreateTableSQLPerDialect checks the DDL each dialect gets: the same
// columns everywhere, only the id definition and table options asked from the
// dialect.
func TestCreateTableSQLPerDialect(t *testing.T) {
	golden := map[string][2]string{
		"sqlite": {
			"CREATE TABLE sbtest1(\n  id INTEGER PRIMARY KEY AUTOINCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL\n)",
			"CREATE TABLE sbtest1(\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) ROW_FORMAT=x",
		},
	}
	for _, d := range dialectall.All() {
		auto := createTableSQL(d, 1, true, "")
		manual := createTableSQL(d, 1, false, "ROW_FORMAT=x")
		for _, s := range []string{auto, manual} {
			for _, col := range []string{"k INTEGER DEFAULT '0' NOT NULL", "c CHAR(120) DEFAULT '' NOT NULL", "pad CHAR(60) DEFAULT '' NOT NULL"} {
				if !strings.Contains(s, col) {
					t.Errorf("%s: %q lacks %q", d.Name(), s, col)
				}
			}
			if !strings.HasPrefix(s, "CREATE TABLE sbtest1(\n  id ") {
				t.Errorf("%s: %q", d.Name(), s)
			}
		}
		if !strings.Contains(auto, d.AutoIncrementPK("id")) || strings.Contains(auto, "PRIMARY KEY (id)") {
			t.Errorf("%s auto-inc DDL: %q", d.Name(), auto)
		}
		if !strings.HasSuffix(auto, ")"+d.TableOptions()) {
			t.Errorf("%s: table options missing: %q", d.Name(), auto)
		}
		if !strings.Contains(manual, "id INTEGER NOT NULL,") || !strings.Contains(manual, "PRIMARY KEY (id)\n)") ||
			!strings.HasSuffix(manual, ")"+d.TableOptions()+" ROW_FORMAT=x") {
			t.Errorf("%s manual-id DDL: %q", d.Name(), manual)
		}
		if g, ok := golden[d.Name()]; ok && (auto != g[0] || manual != g[1]) {
			t.Errorf("%s DDL:\n%s\n%s\nwant\n%s\n%s", d.Name(), auto, manual, g[0], g[1])
		}
	}
}

func TestLoadColumns(t *testing.T) {
	if got := strings.Join(loadColumns(true), ","); got != "k,c,pad" {
		t.Errorf("auto-inc: %s", got)
	}
	if got := strings.Join(loadColumns(false), ","); got != "id,k,c,pad" {
		t.Errorf("manual ids: %s", got)
	}
}
