package capture

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/workfile"
)

// shopCatalog is the catalog of the shop the fixtures came from.
var shopCatalog = &Catalog{Tables: []Table{
	{Name: "customers", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "integer", Unique: true, Range: true, Min: 1, Max: 10000}, {Name: "name", Type: "text"}, {Name: "balance", Type: "numeric"}, {Name: "orders", Type: "integer"}}},
	{Name: "items", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "integer", Unique: true, Range: true, Min: 1, Max: 1000}, {Name: "name", Type: "text"}, {Name: "price", Type: "numeric"}, {Name: "stock", Type: "integer"}}},
	{Name: "orders", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint", Unique: true}, {Name: "customer_id", Type: "integer"}, {Name: "item_id", Type: "integer"}, {Name: "qty", Type: "integer"}, {Name: "amount", Type: "numeric"}, {Name: "created", Type: "timestamp with time zone"}}},
}}

// shopDelta is the statistics of a fixture's window, one statement a line
// (testdata/shop-statements.txt, pg_stat_statements': queryid|query|calls|
// total_exec_time|rows; testdata/shop-mariadb-statements.txt, the digests'
// alike).
func shopDelta(t *testing.T, path string) Delta {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := Delta{Window: 10 * time.Second}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Split(line, "|")
		calls, _ := strconv.ParseInt(f[2], 10, 64)
		ms, _ := strconv.ParseFloat(f[3], 64)
		rows, _ := strconv.ParseInt(f[4], 10, 64)
		d.Stmts = append(d.Stmts, Stmt{ID: f[0], Text: f[1], Calls: calls, TimeMs: ms, Rows: rows})
	}
	return d
}

// TestTraceFromCSVLog reads a real csvlog of pgbench running a shop's
// three scripts (testdata/shop.csv: PostgreSQL 15, log_min_duration_statement
// = 0, 30 transactions with -M prepared, then 30 with -M simple) against
// the statistics of the same window: the checkout's five statements as
// one transaction in their order, every value read under both protocols,
// and the key the checkout carries from statement to statement one
// parameter.
func TestTraceFromCSVLog(t *testing.T) {
	d := shopDelta(t, "testdata/shop-statements.txt")
	f, err := os.Open("testdata/shop.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := NewTrace("csvlog testdata/shop.csv", d)
	if err := tr.ReadPostgresCSV(f, "shop"); err != nil {
		t.Fatal(err)
	}
	if tr.Unaligned != 0 || tr.Sessions != 4 {
		t.Errorf("%d executions not aligned with their statement, %d sessions; want 0 and 4", tr.Unaligned, tr.Sessions)
	}
	var checkouts, txs int64
	for _, s := range tr.Seqs {
		txs += s.Count
		if len(s.IDs) == 5 {
			checkouts += s.Count
		}
	}
	if txs != 60 || checkouts != 31 {
		t.Errorf("%d transactions, %d of five statements; want 60 and 31 (pgbench's -t 15 on 2 clients, twice)", txs, checkouts)
	}

	m := BuildTraced(Source{Dialect: "postgres", Database: "shop"}, d, shopCatalog, -1, tr)
	out, err := m.Render("shop.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	spec, err := workfile.Parse("shop.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	checkout := ofFive(m)
	if checkout == nil || len(m.Txs) != 6 {
		t.Fatalf("%d transactions (want 6: three scripts, two protocols), none of five statements:\n%s", len(m.Txs), out)
	}
	want := []string{"SELECT balance FROM customers", "SELECT price FROM items", "UPDATE items", "INSERT INTO orders", "UPDATE customers"}
	for i, st := range checkout.Stmts {
		if !strings.HasPrefix(st.Text, want[i]) {
			t.Errorf("checkout statement %d: %q, want it to begin %q (the log's order)", i+1, st.Text, want[i])
		}
	}
	insert := checkout.Stmts[3].Text
	if !strings.Contains(insert, "VALUES (:customers_id, :items_id,") || !strings.Contains(checkout.Stmts[4].Text, "WHERE id = :customers_id") {
		t.Errorf("the customer and item keys the checkout carries are not one parameter each:\n%s\n%s", insert, checkout.Stmts[4].Text)
	}
	if !strings.Contains(string(out), "{type: decimal, min: 2.5, max: 2.5}") || strings.Contains(string(out), "# TODO") {
		t.Errorf("the constant 2.5 the log showed is not written, or a TODO is left:\n%s", out)
	}
	if len(spec.Transactions) != 6 || checkout.Think <= 0 {
		t.Errorf("%d transactions in the file, think %v", len(spec.Transactions), checkout.Think)
	}
}

// TestCSVParams reads a csvlog detail's parameters.
func TestCSVParams(t *testing.T) {
	got := params(`parameters: $1 = '2', $2 = NULL, $3 = 'it''s, ok'`)
	if len(got) != 4 || got[1] != "2" || got[2] != "" || got[3] != "it's, ok" {
		t.Errorf("%q", got)
	}
	if ms, text, ok := duration("duration: 0.026 ms  bind P_1: SELECT 1"); ok {
		t.Errorf("a bind step read as an execution: %v %q", ms, text)
	}
	if ms, text, ok := duration("duration: 1.5 ms  execute P_1: SELECT $1"); !ok || ms != 1.5 || text != "SELECT $1" {
		t.Errorf("%v %q %v", ms, text, ok)
	}
}

// TestTraceFromMariaDBSlowLog reads a real slow query log of MariaDB 10.11
// (long_query_time = 0) while sysbench ran the shop's text-protocol
// application (bench/files/shop/shop_mysql.lua, 60 events on 2 threads)
// against the digests of the same window: the checkout's five statements
// between BEGIN and COMMIT as one transaction in their order, the item read
// by an IN list and the recent orders as transactions of their own, the
// keys the checkout carries as one parameter each, and the report whose
// digest the server cut left out.
func TestTraceFromMariaDBSlowLog(t *testing.T) {
	d := shopDelta(t, "testdata/shop-mariadb-statements.txt")
	cat := &Catalog{Tables: []Table{
		{Name: "customers", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "int", Unique: true}, {Name: "name", Type: "varchar"}, {Name: "balance", Type: "decimal"}, {Name: "orders", Type: "int"}}},
		{Name: "items", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "int", Unique: true}, {Name: "name", Type: "varchar"}, {Name: "price", Type: "decimal"}, {Name: "stock", Type: "int"}}},
		{Name: "orders", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint", Unique: true}, {Name: "customer_id", Type: "int"}, {Name: "item_id", Type: "int"}, {Name: "qty", Type: "int"}, {Name: "amount", Type: "decimal"}, {Name: "created", Type: "timestamp"}}},
	}}
	f, err := os.Open("testdata/shop-mariadb-slow.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := NewMySQLTrace("slow query log testdata", d, cat)
	if err := tr.ReadMySQLSlowLog(f, "shop"); err != nil {
		t.Fatal(err)
	}
	var txs, checkouts int64
	for _, s := range tr.Seqs {
		txs += s.Count
		if len(s.IDs) == 5 {
			checkouts += s.Count
		}
	}
	if tr.Sessions != 2 || txs != 57 || checkouts != 35 {
		t.Errorf("%d sessions, %d transactions, %d of five statements; want 2, 57 (60 less the 3 reports, whose digest is cut) and 35", tr.Sessions, txs, checkouts)
	}
	m := BuildTraced(Source{Dialect: "mysql", Database: "shop", MaxDigest: 1024}, d, cat, -1, tr)
	out, err := m.Render("shop.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkout := ofFive(m)
	if checkout == nil || len(m.Txs) != 3 {
		t.Fatalf("%d transactions (want 3: checkout, view, recent), none of five statements:\n%s", len(m.Txs), out)
	}
	if !strings.Contains(checkout.Stmts[3].Text, "VALUES ( :customers_id, :items_id, :items_stock_delta, :items_stock_delta * :todo_2 )") {
		t.Errorf("the checkout's keys are not carried into its INSERT: %s\n%s", checkout.Stmts[3].Text, out)
	}
	if !strings.Contains(string(out), "IN (:items_id, :items_id_2, :items_id_3, :items_id_4, :items_id_5)") || !strings.Contains(string(out), "showed 5 values every time") {
		t.Errorf("the IN list is not the length the log showed:\n%s", out)
	}
	if !strings.Contains(string(out), "left out: a SELECT statement whose text is 1006 bytes") {
		t.Errorf("the cut report is not left out with a note:\n%s", out)
	}
}

// ofFive is the model's transaction of five statements (the checkout), or
// nil.
func ofFive(m *Model) *Tx {
	for i, tx := range m.Txs {
		if len(tx.Stmts) == 5 {
			return &m.Txs[i]
		}
	}
	return nil
}
