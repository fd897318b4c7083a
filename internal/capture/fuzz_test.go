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
