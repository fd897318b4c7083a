package capture

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/sqltext"
	"github.com/rightsize/rightsize/internal/workfile"
)

var catalog = &Catalog{Tables: []Table{
	{Name: "acct", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint", Unique: true, Range: true, Min: 1, Max: 10000}, {Name: "bal", Type: "numeric"}, {Name: "name", Type: "text"}}},
	{Name: "hist", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint", Unique: true}, {Name: "acct_id", Type: "bigint"}, {Name: "amt", Type: "numeric"}, {Name: "note", Type: "text"}}},
}}

func snap(at time.Time, commits int64, stmts ...Stmt) Snapshot {
	return Snapshot{At: at, Commits: commits, Stmts: stmts}
}

// pgDelta is ten seconds of an application on PostgreSQL: point reads, a
// read-then-update transaction, inserts, a range scan, transaction
// control, capture's own query and a rare statement with a literal.
func pgDelta() Delta {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := snap(t0, 1000,
		Stmt{ID: "1", Text: "SELECT bal, name FROM acct WHERE id = $1", Calls: 100, TimeMs: 10},
		Stmt{ID: "9", Text: "begin", Calls: 50},
	)
	b := snap(t0.Add(10*time.Second), 1000+10500,
		Stmt{ID: "1", Text: "SELECT bal, name FROM acct WHERE id = $1", Calls: 6100, TimeMs: 610, Rows: 6100},
		Stmt{ID: "2", Text: "SELECT bal FROM acct WHERE id = $1 FOR UPDATE", Calls: 3000, TimeMs: 400, Rows: 3000},
		Stmt{ID: "3", Text: "UPDATE acct SET bal = bal - $1 WHERE id = $2", Calls: 2999, TimeMs: 900, Rows: 2999},
		Stmt{ID: "4", Text: "INSERT INTO hist (acct_id, amt, note) VALUES ($1, $2, $3)", Calls: 1000, TimeMs: 300, Rows: 1000},
		Stmt{ID: "5", Text: "SELECT id, bal FROM acct a WHERE a.id BETWEEN $1 AND $2 ORDER BY id LIMIT $3", Calls: 500, TimeMs: 250, Rows: 5000},
		Stmt{ID: "9", Text: "begin", Calls: 3050},
		Stmt{ID: "10", Text: "commit", Calls: 3000},
		Stmt{ID: "11", Text: "/* rightsize capture */ SELECT queryid, query FROM pg_stat_statements", Calls: 2, TimeMs: 1},
		Stmt{ID: "12", Text: "SELECT count(*) FROM acct WHERE name = 'secret-value'", Calls: 3, TimeMs: 0.5},
		Stmt{ID: "13", Text: "SELECT $1", Calls: 40, TimeMs: 0.1},
	)
	return Diff(a, b)
}

func TestDiff(t *testing.T) {
	d := pgDelta()
	if d.Window != 10*time.Second || d.Commits != 10500 {
		t.Errorf("window %v, commits %d", d.Window, d.Commits)
	}
	if d.Stmts[0].ID != "1" || d.Stmts[0].Calls != 6000 || d.Stmts[0].TimeMs != 600 {
		t.Errorf("first statement %+v, want id 1 with 6000 calls and 600 ms (the window's)", d.Stmts[0])
	}
}

// TestBuildPostgres: the mix, the grouping, the bindings and 1x of a
// PostgreSQL capture, and a file the checker accepts.
func TestBuildPostgres(t *testing.T) {
	m := Build(Source{Dialect: "postgres", Server: "PostgreSQL 15.20", Database: "app", TxCounter: "pg_stat_database"}, pgDelta(), catalog, 10500)
	var names []string
	weights := map[string]int64{}
	for _, tx := range m.Txs {
		names = append(names, tx.Name)
		weights[tx.Name] = tx.Calls
	}
	want := map[string]int64{"select_acct": 6000, "select_update_acct": 3000, "insert_hist": 1000, "select_acct_2": 500}
	for n, w := range want {
		if weights[n] != w {
			t.Errorf("transaction %s weight %d, want %d (transactions %v)", n, weights[n], w, names)
		}
	}
	if len(m.Txs) != 4 {
		t.Errorf("transactions %v: want 4 (the rare statement, transaction control, capture's own query and SELECT $1 left out)", names)
	}
	if m.Rate != 1050 || m.ServerTx != 1050 {
		t.Errorf("rate %v, server %v: want 1050 per second", m.Rate, m.ServerTx)
	}
	out, err := m.Render("app.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := string(out)
	for _, w := range []string{
		"baseline_rate: 1050.000",
		"dialects: [postgres]",
		"  - {name: acct, existing: true}",
		"  acct_id: {type: sample, column: acct.id, min: 1, max: 10000}", // the range: an empty copy
		`"SELECT bal FROM acct WHERE id = :acct_id FOR UPDATE"`,
		`"UPDATE acct SET bal = bal - :acct_bal_delta WHERE id = :acct_id"`,
		`"INSERT INTO hist (acct_id, amt, note) VALUES (:new_hist_acct_id, :new_hist_amt, :new_hist_note)"`,
		"BETWEEN :acct_id_lo AND :acct_id_hi ORDER BY id LIMIT :limit_n",
		"acct_id_lo: {type: int, min: 1, max: 10000}",
		"# guess: a range bound on acct.id, over the column's range in the planner's statistics (pg_stats)",
		"# TODO: the LIMIT production used is normalized away",
		"# These 2 statements ran equally often (3000, 2999 calls) on acct: offered as one transaction.",
		"# allow_writes: true",
		"The server counted 1050.0 transactions per second",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the file lacks %q:\n%s", w, text)
		}
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.Contains(l, ": {type:") && !strings.HasPrefix(lines[i-1], "  # ") {
			t.Errorf("parameter line %d has no comment above it: %s", i+1, l)
		}
	}
	if strings.Contains(text, "secret-value") || strings.Contains(text, "pg_stat_statements FROM") {
		t.Errorf("the file holds a literal of production or capture's own query:\n%s", text)
	}
	spec, err := workfile.Parse("app.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	if spec.BaselineRate != 1050 || spec.AllowWrites || len(spec.WritesExisting()) == 0 {
		t.Errorf("baseline %v, allow_writes %v, writes %v: want 1050, no consent, writes to existing tables", spec.BaselineRate, spec.AllowWrites, spec.WritesExisting())
	}
	for _, tx := range spec.Transactions {
		if tx.Name == "select_update_acct" && (tx.Autocommit || len(tx.Statements) != 2) {
			t.Errorf("the grouped transaction: autocommit %v, %d statements", tx.Autocommit, len(tx.Statements))
		}
		if tx.Name == "select_acct" && !tx.Autocommit {
			t.Error("a statement of its own runs in autocommit")
		}
	}
}

// TestBuildMySQL: digests with backquotes, collapsed lists and literals
// normalized to ?, and the server's own statements left out.
func TestBuildMySQL(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := Diff(snap(t0, 0), snap(t0.Add(20*time.Second), 0,
		Stmt{ID: "a", Text: "SELECT `bal` , `name` FROM `acct` WHERE `id` = ? ", Calls: 4000, TimeMs: 400},
		Stmt{ID: "b", Text: "INSERT INTO `hist` ( `acct_id` , `amt` , `note` ) VALUES (...) /* , ... */ ", Calls: 1000, TimeMs: 300},
		Stmt{ID: "c", Text: "INSERT INTO `hist` VALUES (...) ", Calls: 990, TimeMs: 200},
		Stmt{ID: "d", Text: "SELECT `id` FROM `acct` WHERE `id` IN (...) AND `name` LIKE ? LIMIT ?, ?", Calls: 1000, TimeMs: 100},
		Stmt{ID: "e", Text: "COMMIT ", Calls: 1000},
		Stmt{ID: "f", Text: "SHOW GLOBAL STATUS LIKE ? ", Calls: 2},
		Stmt{ID: "g", Text: "SELECT `DIGEST_TEXT` FROM `performance_schema` . `events_statements_summary_by_digest` ", Calls: 2, TimeMs: 5},
		Stmt{ID: "h", Text: "SELECT `VERSION` ( ) ", Calls: 50},
		Stmt{ID: "i", Text: "SELECT @@`version_comment` LIMIT ?", Calls: 50},
	))
	m := Build(Source{Dialect: "mysql", Server: "MariaDB 10.11", Database: "app"}, d, catalog, -1)
	out, err := m.Render("app.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := string(out)
	for _, w := range []string{
		"dialects: [mysql]",
		"\"SELECT `bal` , `name` FROM `acct` WHERE `id` = :acct_id\"",
		"VALUES (:new_hist_acct_id, :new_hist_amt, :new_hist_note)\"",
		"\"INSERT INTO `hist` VALUES (:new_hist_id, :new_hist_acct_id, :new_hist_amt, :new_hist_note)\"",
		"`id` IN (:acct_id, :acct_id_2, :acct_id_3) AND `name` LIKE :acct_name LIMIT :limit_n, :limit_n_2",
		"new_hist_id: {type: seq, start: 1_000_000_000}",
		"baseline_rate: 349.500",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the file lacks %q:\n%s", w, text)
		}
	}
	for _, no := range []string{"performance_schema", "VERSION", "SHOW", "COMMIT", "/*"} {
		if strings.Contains(strings.SplitN(text, "version: 1", 2)[1], no) {
			t.Errorf("the file holds %q:\n%s", no, text)
		}
	}
	if len(m.Txs) != 4 {
		t.Errorf("%d transactions, want 4", len(m.Txs))
	}
}

// TestUnknownIsTODO: a placeholder capture cannot bind gets a value the
// checker accepts and a TODO that says what to fill in.
func TestUnknownIsTODO(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
		Stmt{ID: "a", Text: "SELECT id FROM acct WHERE lower(name) = $1 AND nosuch = $2", Calls: 10, TimeMs: 1}))
	m := Build(Source{Dialect: "postgres", Database: "app"}, d, catalog, 10)
	out, err := m.Render("x.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"# TODO: capture could not tell what it stands for: 0 is a placeholder", "todo: {type: int, min: 0, max: 0}", "# TODO: capture could not tell the table of column nosuch"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("the file lacks %q:\n%s", w, out)
		}
	}
}

// TestLeftOutNamed: a statement left out because its text was cut inside
// a literal (a digest at its maximum length) is named in the note by its
// first word, read by its own dialect's rules.
func TestLeftOutNamed(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct{ dialect, text, keep string }{
		{"postgres", "UPDATE acct SET name = 'abc", "SELECT bal FROM acct WHERE id = $1"},
		{"mysql", "SELECT `bal` FROM `acct` WHERE $a$ = 'abc", "SELECT `bal` FROM `acct` WHERE `id` = ?"},
	} {
		d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
			Stmt{ID: "a", Text: c.text, Calls: 10, TimeMs: 1},
			Stmt{ID: "b", Text: c.keep, Calls: 10, TimeMs: 1}))
		m := Build(Source{Dialect: c.dialect, Database: "app"}, d, catalog, 10)
		want := "left out: a " + strings.Fields(c.text)[0] + " statement whose text has a literal, identifier or comment not closed (truncated?)"
		if len(m.Notes) != 1 || m.Notes[0] != want {
			t.Errorf("%s: notes %q, want %q", c.dialect, m.Notes, want)
		}
	}
}

// TestReservedTableLeftOut: a table named by a word SQL reserves (order,
// user) cannot be declared in a workload file, so the statements that
// name it are left out with a note, and the file is written with the rest
// (it was refused as capture's own error).
func TestReservedTableLeftOut(t *testing.T) {
	cat := &Catalog{Tables: append([]Table{{Name: "order", Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint", Unique: true}, {Name: "total", Type: "numeric"}}}}, catalog.Tables...)}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct{ dialect, read, write, keep string }{
		{"postgres", `SELECT total FROM "order" WHERE id = $1`, "INSERT INTO \"User\" (id) VALUES ($1)", "SELECT bal FROM acct WHERE id = $1"},
		{"mysql", "SELECT `total` FROM `order` WHERE `id` = ?", "INSERT INTO `user` ( `id` ) VALUES (?)", "SELECT `bal` FROM `acct` WHERE `id` = ?"},
	} {
		d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
			Stmt{ID: "a", Text: c.read, Calls: 10, TimeMs: 1},
			Stmt{ID: "b", Text: c.write, Calls: 10, TimeMs: 1},
			Stmt{ID: "c", Text: c.keep, Calls: 10, TimeMs: 1}))
		m := Build(Source{Dialect: c.dialect, Database: "app"}, d, cat, 30)
		out, err := m.Render("x.yaml")
		if err != nil {
			t.Errorf("%s: %v\n%s", c.dialect, err, out)
			continue
		}
		for _, w := range []string{
			"left out: a SELECT statement on table order, a word SQL reserves: a workload file cannot declare it (10 calls)",
			"left out: a INSERT statement on table user, a word SQL reserves: a workload file cannot declare it (10 calls)",
		} {
			if !slices.Contains(m.Notes, w) {
				t.Errorf("%s: notes %q lack %q", c.dialect, m.Notes, w)
			}
		}
		body := strings.ToLower(strings.SplitN(string(out), "version: 1", 2)[1])
		if len(m.Txs) != 1 || strings.Contains(body, "order") || strings.Contains(body, "user") {
			t.Errorf("%s: %d transactions; the file (below its header) names order or user:\n%s", c.dialect, len(m.Txs), out)
		}
	}
}

// TestTooLargeIsCut: a capture whose file would pass the workload file's
// limit (thousands of long statements) keeps the most-called transactions
// that fit, with a note, instead of failing after its window (issue 49).
func TestTooLargeIsCut(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var stmts []Stmt
	cat := &Catalog{}
	cols := strings.Repeat("bal, name, ", 40) + "id"
	for i := range 3000 { // a table each, so that none is grouped with another
		tab := "t" + strconv.Itoa(i)
		cat.Tables = append(cat.Tables, Table{Name: tab, Key: []string{"id"}, Columns: []Column{{Name: "id", Type: "bigint", Unique: true}, {Name: "bal", Type: "numeric"}, {Name: "name", Type: "text"}}})
		stmts = append(stmts, Stmt{ID: strconv.Itoa(i), Text: fmt.Sprintf("SELECT %s FROM %s WHERE id = $1", cols, tab), Calls: int64(10 + i), TimeMs: 1})
	}
	d := Diff(snap(t0, 0), snap(t0.Add(10*time.Second), 0, stmts...))
	m := Build(Source{Dialect: "postgres", Database: "app"}, d, cat, 0)
	before := m.CoveredCalls
	out, err := m.Render("x.yaml")
	if err != nil {
		t.Fatalf("%v (%d bytes)", err, len(out))
	}
	if len(out) > workfile.MaxFile || len(m.Txs) == 0 || len(m.Txs) >= 3000 {
		t.Fatalf("%d bytes, %d transactions kept of 3000", len(out), len(m.Txs))
	}
	var note string
	for _, n := range m.Notes {
		if strings.Contains(n, "least-called transactions") {
			note = n
		}
	}
	if note == "" || !strings.Contains(string(out), "least-called transactions") {
		t.Errorf("no note of the cut in %q", m.Notes)
	}
	for _, tx := range m.Txs {
		if tx.Calls < 10+int64(3000-len(m.Txs))-1 {
			t.Errorf("kept %s with %d calls, while more-called ones were left out", tx.Name, tx.Calls)
			break
		}
	}
	if !(m.CoveredCalls < before) || m.CoveredCalls <= 0 {
		t.Errorf("the header's share of calls %.3f (before the cut %.3f): want it lowered", m.CoveredCalls, before)
	}
}

// TestReplayCommand: the command the file prints runs enough virtual
// users for 5x (16 at least, more when production's transactions take
// long), and gives the consent to write when the file writes.
func TestReplayCommand(t *testing.T) {
	m := Build(Source{Dialect: "postgres", Server: "PostgreSQL 15.20", Database: "app", TxCounter: "pg_stat_database"}, pgDelta(), catalog, 10500)
	out, err := m.Render("x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "#   rightsize sweep FILE.yaml --rate 1x,2x,3x,4x,5x --threads 16 --allow-writes --target COPY_URL") {
		t.Errorf("the replay command lacks 16 threads or the consent:\n%s", out)
	}
	slow := *m
	slow.Txs = []Tx{{Calls: 100, Stmts: []SQL{{Calls: 100, MeanMs: 99}}}}
	slow.Rate = 100 // 5x: 500 per second of 100 ms: 50 in flight
	if n := slow.ReplayThreads(); n != 100 {
		t.Errorf("%d threads for 50 transactions in flight at 5x, want 100", n)
	}
}

// TestParamsOfAnOperatorAreTyped: on PostgreSQL, a product of two
// parameters (a literal normalized away) is written with casts, which the
// server needs to choose the operator; a parameter beside a column is not
// (issue 49: 'operator is not unique: unknown * unknown').
func TestParamsOfAnOperatorAreTyped(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
		Stmt{ID: "a", Text: "UPDATE acct SET bal = bal - $1 * $2 WHERE id = $3", Calls: 10, TimeMs: 1}))
	m := Build(Source{Dialect: "postgres", Database: "app"}, d, catalog, 10)
	got := m.Txs[0].Stmts[0].Text
	if !strings.Contains(got, "bal - :acct_bal_delta::numeric * :") || strings.Count(got, "::numeric") != 2 || strings.Contains(got, ":acct_id::") {
		t.Errorf("statement %q: want both operands of * cast to numeric, the key not", got)
	}
	if out, err := m.Render("x.yaml"); err != nil || len(m.Txs) != 1 || !strings.Contains(string(out), "::numeric * :") {
		t.Errorf("the file does not keep the cast statement (%v):\n%s", err, out)
	}
}

// TestCutDigestLeftOut: on MySQL and MariaDB a statement's digest text
// near performance_schema_max_digest_length may have been cut there, with
// no mark (MariaDB 10.11 cut a 150-column SELECT at 977 bytes, before its
// FROM): it is left out with a note, never written as another statement
// (issue 49 item 8).
func TestCutDigestLeftOut(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	long := "SELECT " + strings.Repeat("`bal` + ? AS `x` , ", 50) + "`bal` FROM `acct` WHERE `id` = ?"
	d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
		Stmt{ID: "a", Text: long, Calls: 10, TimeMs: 1},
		Stmt{ID: "b", Text: "SELECT `bal` FROM `acct` WHERE `id` = ?", Calls: 500, TimeMs: 1}))
	m := Build(Source{Dialect: "mysql", Database: "app", MaxDigest: 1024}, d, catalog, 10)
	if len(m.Txs) != 1 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "near the server's performance_schema_max_digest_length (1024)") {
		t.Errorf("%d transactions, notes %q: want the long statement left out with its reason", len(m.Txs), m.Notes)
	}
	if m := Build(Source{Dialect: "mysql", Database: "app"}, d, catalog, 10); len(m.Txs) != 2 {
		t.Errorf("without the server's limit known, %d transactions kept, want 2", len(m.Txs))
	}
}

// TestCTENamesAreNotTables: the name a WITH clause gives is the
// statement's own: the tables a statement reads and writes never include
// it (issue 49 item 8: one was declared as an existing table).
func TestCTENamesAreNotTables(t *testing.T) {
	for _, c := range []struct {
		mysql bool
		text  string
	}{
		{false, "WITH recent (id) AS MATERIALIZED (SELECT id FROM acct WHERE bal > $1), other AS (SELECT acct_id FROM hist) SELECT r.id FROM recent r JOIN other o ON o.acct_id = r.id"},
		{false, "WITH recent AS (SELECT id FROM acct) DELETE FROM hist WHERE acct_id IN (SELECT id FROM recent)"},
		{true, "WITH RECURSIVE `recent` AS ( SELECT `id` FROM `acct` WHERE `bal` > ? ) SELECT `r` . `id` FROM `recent` `r` JOIN `hist` `h` ON `h` . `acct_id` = `r` . `id`"},
	} {
		var names []string
		for _, r := range tables(lex(c.text, c.mysql)) {
			names = append(names, r.name)
		}
		slices.Sort(names)
		if names = slices.Compact(names); !slices.Equal(names, []string{"acct", "hist"}) {
			t.Errorf("%q: tables %v, want acct and hist", c.text, names)
		}
	}
}

// TestInListStaysAList: MySQL's digest writes IN (1,2,3,4,5) as IN (...);
// capture writes a list of three values, each a parameter, and says the
// length is a guess (issue 49 item 8: it became one value).
func TestInListStaysAList(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
		Stmt{ID: "a", Text: "SELECT `bal` FROM `acct` WHERE `id` IN (...)", Calls: 10, TimeMs: 1}))
	m := Build(Source{Dialect: "mysql", Database: "app"}, d, catalog, 10)
	out, err := m.Render("x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "IN (:acct_id, :acct_id_2, :acct_id_3)") || !strings.Contains(string(out), "# TODO: the digest hides the length of its IN list") {
		t.Errorf("the IN list is not a list of three with its TODO:\n%s", out)
	}
}

// TestOwnStatementsLeftOut: the statements rightsize runs for itself on a
// target (sqltext.Own: loading a sample's values, a sequence's start) are
// not the application's, however often they ran.
func TestOwnStatementsLeftOut(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := Diff(snap(t0, 0), snap(t0.Add(10*time.Second), 100,
		Stmt{ID: "1", Text: "SELECT bal FROM acct WHERE id = $1", Calls: 100, TimeMs: 10, Rows: 100},
		Stmt{ID: "2", Text: sqltext.Own + "SELECT id FROM acct", Calls: 400, TimeMs: 900, Rows: 4_000_000},
		Stmt{ID: "3", Text: sqltext.Own + "SELECT MAX(id) FROM hist", Calls: 8, TimeMs: 1, Rows: 8},
	))
	m := Build(Source{Dialect: "postgres", Database: "app"}, d, catalog, 100)
	if m.Calls != 100 || m.StatementCount() != 1 || m.Txs[0].Stmts[0].Text != "SELECT bal FROM acct WHERE id = :acct_id" {
		t.Errorf("%d calls, %d statements (%+v): want rightsize's own left out", m.Calls, m.StatementCount(), m.Txs)
	}
}
