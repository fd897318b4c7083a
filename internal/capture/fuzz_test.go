package capture

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzRender: whatever text a server shows as a statement, capture
// neither panics nor writes a file the workload file's checker refuses,
// and copies no literal into it.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"SELECT bal, name FROM acct WHERE id = $1",
		"UPDATE acct SET bal = bal - $1 WHERE id = $2",
		"INSERT INTO hist (acct_id, amt, note) VALUES ($1, $2, $3)",
		"SELECT id FROM acct a WHERE a.id BETWEEN $1 AND $2 ORDER BY id LIMIT $3 OFFSET $4",
		"SELECT `id` FROM `acct` WHERE `id` IN (...) AND `name` LIKE ? LIMIT ?, ?",
		"INSERT INTO `hist` VALUES (...) /* , ... */ ",
		"SELECT count(*) FROM acct WHERE name = 'secret' AND bal > 12.5",
		"WITH x AS (SELECT id FROM acct WHERE id = $1) UPDATE hist SET note = $2 FROM x WHERE hist.acct_id = x.id",
		"SELECT $1::int, '$2' FROM acct WHERE name = E'it''s' -- :x",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string, mysql bool) {
		dialect := "postgres"
		if mysql {
			dialect = "mysql"
		}
		d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
			Stmt{ID: "a", Text: text, Calls: 10, TimeMs: 1},
			Stmt{ID: "b", Text: "SELECT bal FROM acct WHERE id = $1", Calls: 10, TimeMs: 1}))
		m := Build(Source{Dialect: dialect, Database: "app"}, d, catalog, 20)
		out, err := m.Render("f.yaml")
		if errors.Is(err, ErrRender) {
			t.Fatalf("%v\n%s", err, out)
		}
		if err == nil && strings.Contains(text, "'secret'") && strings.Contains(string(out), "secret") {
			t.Fatalf("a literal was copied:\n%s", out)
		}
	})
}

// FuzzTraceLogs: whatever a statement log holds (a csvlog or slow query
// log cut anywhere, lines of another format, values that do not match
// their statement), reading it neither panics nor builds a file the
// workload file's checker refuses.
func FuzzTraceLogs(f *testing.F) {
	for _, s := range []string{
		`2026-12-07 19:23:02.336 UTC,"postgres","app",5118,"127.0.0.1:48372",6b170796.13fe,24,"SELECT",2026-12-07 19:23:02 UTC,3/8,0,LOG,00000,"duration: 0.024 ms  execute P_1: SELECT bal FROM acct WHERE id = $1;","parameters: $1 = '2'",,,,,,,,"pgbench","client backend",,42`,
		`2026-12-07 19:23:02.372 UTC,"postgres","app",5121,"127.0.0.1:48396",6b170796.1401,2,"SELECT",2026-12-07 19:23:02 UTC,3/11,0,LOG,00000,"duration: 0.687 ms  statement: SELECT bal FROM acct WHERE id = -110;",,,,,,,,,"pgbench","client backend",,42`,
		"# User@Host: root[root] @  [127.0.0.1]\n# Thread_id: 3  Schema: app  QC_hit: No\n# Query_time: 0.000148  Lock_time: 0.000080  Rows_sent: 1  Rows_examined: 1\nSET timestamp=1796672398;\nselect bal from acct where id = 1;\n",
		"# Time: 261207 19:40:01\n# User@Host: x\n# Thread_id: 3  Schema: app\nSET timestamp=1;\nBEGIN;\n# User@Host: x\n# Thread_id: 3  Schema: app\nSET timestamp=1;\nSELECT `bal` FROM acct WHERE id IN (1, 2, 3, 4);\n",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, log string, mysql bool) {
		dialect, text := "postgres", "SELECT bal FROM acct WHERE id = $1"
		if mysql {
			dialect, text = "mysql", "SELECT `bal` FROM `acct` WHERE ID = ?"
		}
		d := Diff(snap(t0, 0), snap(t0.Add(time.Second), 0,
			Stmt{ID: "42", Text: text, Calls: 10, TimeMs: 1},
			Stmt{ID: "43", Text: "SELECT bal FROM acct WHERE id IN (...)", Calls: 10, TimeMs: 1}))
		var tr *Trace
		var err error
		if mysql {
			tr = NewMySQLTrace("fuzz", d, catalog)
			err = tr.ReadMySQLSlowLog(strings.NewReader(log), "app")
		} else {
			tr = NewTrace("fuzz", d)
			err = tr.ReadPostgresCSV(strings.NewReader(log), "app")
		}
		if err != nil && !errors.Is(err, ErrLog) {
			t.Fatalf("an error that is not ErrLog: %v", err)
		}
		m := BuildTraced(Source{Dialect: dialect, Database: "app"}, d, catalog, 20, tr)
		if out, err := m.Render("f.yaml"); errors.Is(err, ErrRender) {
			t.Fatalf("%v\n%s", err, out)
		}
	})
}
