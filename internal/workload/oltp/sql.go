package oltp

import (
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// op is a kind of statement; its value indexes opDefs.
type op int

const (
	opBegin op = iota
	opPointSelect
	opSimpleRange
	opSumRange
	opOrderRange
	opDistinctRange
	opIndexUpdate
	opNonIndexUpdate
	opDelete
	opInsert
	opCommit
	numOps
)

// opDef is one statement kind: its operation name and sysbench's read, write
// or other classification, and its SQL (sysbench's stmt_defs, with %u the
// table number); begin and commit go through Conn.Begin/Commit instead.
type opDef struct {
	name string
	kind workload.OpKind
	sql  string
}

var opDefs = [numOps]opDef{
	opBegin:          {"begin", workload.Other, ""},
	opPointSelect:    {"point_select", workload.Read, "SELECT c FROM sbtest%u WHERE id=?"},
	opSimpleRange:    {"simple_range", workload.Read, "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?"},
	opSumRange:       {"sum_range", workload.Read, "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?"},
	opOrderRange:     {"order_range", workload.Read, "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c"},
	opDistinctRange:  {"distinct_range", workload.Read, "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c"},
	opIndexUpdate:    {"index_update", workload.Write, "UPDATE sbtest%u SET k=k+1 WHERE id=?"},
	opNonIndexUpdate: {"non_index_update", workload.Write, "UPDATE sbtest%u SET c=? WHERE id=?"},
	opDelete:         {"delete", workload.Write, "DELETE FROM sbtest%u WHERE id=?"},
	opInsert:         {"insert", workload.Write, "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)"},
	opCommit:         {"commit", workload.Other, ""},
}

// insertAutoIncSQL is oltp_insert's statement when --auto-inc is on: the
// database numbers the row (sysbench sends id 0 to MySQL and omits id for
// PostgreSQL; omitting it works everywhere).
const insertAutoIncSQL = "INSERT INTO sbtest%u (k, c, pad) VALUES (?, ?, ?)"

// tableName returns "sbtest<n>".
func tableName(n int) string { return "sbtest" + strconv.Itoa(n) }

// forTable substitutes table number n into a stmt_defs text.
func forTable(sql string, n int) string { return strings.Replace(sql, "%u", strconv.Itoa(n), 1) }

// statementSQL returns the text op runs against table n.
func statementSQL(o op, n int, autoIncInsert bool) string {
	if o == opInsert && autoIncInsert {
		return forTable(insertAutoIncSQL, n)
	}
	return forTable(opDefs[o].sql, n)
}

// createTableSQL is sysbench's CREATE TABLE (oltp_common.lua create_table).
// The id column comes from the dialect when the database numbers ids; it then
// carries PRIMARY KEY itself, otherwise a PRIMARY KEY (id) clause follows.
func createTableSQL(d dialect.Dialect, n int, autoInc bool, extra string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(tableName(n))
	b.WriteString("(\n  ")
	if autoInc {
		b.WriteString(d.AutoIncrementPK("id"))
	} else {
		b.WriteString("id INTEGER NOT NULL")
	}
	b.WriteString(",\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL")
	if !autoInc {
		b.WriteString(",\n  PRIMARY KEY (id)")
	}
	b.WriteString("\n)")
	b.WriteString(d.TableOptions())
	if extra != "" {
		b.WriteString(" ")
		b.WriteString(extra)
	}
	return b.String()
}

// createIndexSQL is sysbench's secondary index, created after the load.
func createIndexSQL(n int) string {
	s := strconv.Itoa(n)
	return "CREATE INDEX k_" + s + " ON sbtest" + s + "(k)"
}

// loadColumns are the columns prepare fills: sysbench leaves id to the
// database when --auto-inc is on.
func loadColumns(autoInc bool) []string {
	if autoInc {
		return []string{"k", "c", "pad"}
	}
	return []string{"id", "k", "c", "pad"}
}

// metaTable is where prepare records the tables it created.
const metaTable = objects.Table

func countRowsSQL(name string) string { return "SELECT COUNT(*) FROM " + name }
