package workfile

import (
	"slices"
	"strings"
	"testing"
)

func TestReferences(t *testing.T) {
	cases := []struct {
		dialect, sql string
		refs         []string
	}{
		{"", "SELECT a FROM t WHERE id = :id AND k = :k", []string{"id", "k"}},
		{"", "SELECT :a::int, x::text FROM t", []string{"a"}},
		{"", "SELECT ':no', \":no\" FROM t WHERE c = :yes", []string{"yes"}},
		{"", "SELECT 1 -- :no\n, :yes /* :no /* :no */ :no */", []string{"yes"}},
		{Postgres, "SELECT $$ :no $$, $tag$ :no $tag$, :yes", []string{"yes"}},
		{Postgres, "SELECT E'it\\'s :no', :yes", []string{"yes"}},
		{"", "SELECT 'it''s :no', :yes", []string{"yes"}},
		{MySQL, "SELECT 'it\\'s :no', \"also :no\", `:no`, :yes # :no", []string{"yes"}},
		{MySQL, "SELECT @v := :yes", []string{"yes"}},
		{SQLite, "SELECT \":no\", [x], :yes", []string{"yes"}},
		{"", "SELECT a[1:2], :p_1, :p$x", []string{"p_1", "p"}},
		{"", "SELECT :a + :a", []string{"a", "a"}},
	}
	for _, c := range cases {
		a := analyze(c.sql, c.dialect)
		if len(a.errs) > 0 {
			t.Errorf("%q: %v", c.sql, a.errs)
			continue
		}
		var got []string
		for _, r := range a.refs {
			got = append(got, r.Name)
			if c.sql[r.Start:r.End] != ":"+r.Name {
				t.Errorf("%q: span %d-%d is %q", c.sql, r.Start, r.End, c.sql[r.Start:r.End])
			}
		}
		if !slices.Equal(got, c.refs) {
			t.Errorf("%s %q: references %v, want %v", c.dialect, c.sql, got, c.refs)
		}
	}
}

func TestWritesFound(t *testing.T) {
	cases := []struct {
		dialect, sql string
		writes       []string
		opaque       bool
	}{
		{"", "SELECT * FROM t FOR UPDATE", nil, false},
		{"", "SELECT * FROM t FOR NO KEY UPDATE OF t", nil, false},
		{"", "INSERT INTO T (a) VALUES (1)", []string{"t"}, false},
		{"", `INSERT INTO "Mixed" (a) VALUES (1)`, []string{"Mixed"}, false},
		{"", "INSERT INTO s.t VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 1", []string{"s.t"}, false},
		{MySQL, "INSERT IGNORE INTO t VALUES (1) ON DUPLICATE KEY UPDATE b = 1", []string{"t"}, false},
		{MySQL, "INSERT t VALUES (1)", []string{"t"}, false},
		{MySQL, "SELECT INSERT('abc', 1, 1, 'x'), REPLACE(c, 'a', 'b') FROM t", nil, false},
		{MySQL, "REPLACE INTO t VALUES (1)", []string{"t"}, false},
		{SQLite, "INSERT OR REPLACE INTO t VALUES (1)", []string{"t"}, false},
		{SQLite, "UPDATE OR IGNORE t SET a = 1", []string{"t"}, false},
		{"", "UPDATE ONLY t SET a = 1 FROM u WHERE u.id = t.id", []string{"t"}, false},
		{MySQL, "UPDATE LOW_PRIORITY IGNORE t SET a = 1", []string{"t"}, false},
		{"", "DELETE FROM t WHERE id = 1", []string{"t"}, false},
		{MySQL, "DELETE t1, t2 FROM t1 JOIN t2 ON t1.id = t2.id", []string{"t1", "t2"}, false},
		{MySQL, "DELETE QUICK FROM t", []string{"t"}, false},
		{"", "WITH d AS (DELETE FROM t RETURNING id) INSERT INTO u SELECT id FROM d", []string{"t", "u"}, false},
		{"", "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN UPDATE SET a = u.a WHEN NOT MATCHED THEN INSERT (id) VALUES (u.id)", []string{"t"}, false},
		{"", "EXPLAIN ANALYZE DELETE FROM t", []string{"t"}, false},
		{"", "CALL p(1)", nil, true},
		{Postgres, "DO $$ BEGIN PERFORM 1; END $$", nil, true},
		{"", "VACUUM t", nil, true},
		{"", "INSERT INTO (SELECT 1)", nil, true},
		{"", "SELECT a INTO @v FROM t", nil, false},
		{"", "ROLLBACK TO SAVEPOINT s", nil, false},
	}
	for _, c := range cases {
		a := analyze(c.sql, c.dialect)
		if len(a.errs) > 0 {
			t.Errorf("%q: %v", c.sql, a.errs)
			continue
		}
		if !slices.Equal(a.writes, c.writes) || a.opaque != c.opaque {
			t.Errorf("%s %q: writes %v, opaque %v; want %v, %v", c.dialect, c.sql, a.writes, a.opaque, c.writes, c.opaque)
		}
	}
}

func TestRender(t *testing.T) {
	y := base + `params:
  k: {type: int, min: 1, max: 5}
transactions:
  - name: x
    statements:
      - name: s
        sql: "SELECT v, ':k', x::text FROM a WHERE id = :k OR v = :got OR id = :k; "
        into: [got, lit, xt]
`
	// :got is the statement's own into: refer to it from a second one.
	y = strings.Replace(y, "        into: [got, lit, xt]\n", "        into: [got, lit, xt]\n      - {name: u, sql: 'SELECT :k, :got, :k'}\n", 1)
	y = strings.Replace(y, "v = :got OR ", "", 1)
	s, err := Parse("r.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	f := s.Transactions[0].Statements[0].Form(Postgres)
	if f.SQL != "SELECT v, ':k', x::text FROM a WHERE id = :k OR id = :k" {
		t.Errorf("SQL kept as %q (the final ; and spaces dropped)", f.SQL)
	}
	q, args := f.Render(Dollar)
	if q != "SELECT v, ':k', x::text FROM a WHERE id = $1 OR id = $1" || len(args) != 1 || args[0].Param != 0 {
		t.Errorf("Dollar: %q %+v", q, args)
	}
	q, args = f.Render(Question)
	if q != "SELECT v, ':k', x::text FROM a WHERE id = ? OR id = ?" || len(args) != 2 {
		t.Errorf("Question: %q %+v", q, args)
	}
	g := s.Transactions[0].Statements[1].Form(MySQL)
	q, args = g.Render(Dollar)
	want := []Slot{{Name: "k", Param: 0}, {Name: "got", Param: -1, Stmt: 0, Col: 0}}
	if q != "SELECT $1, $2, $1" || !slices.Equal(args, want) {
		t.Errorf("Dollar with a returned value: %q %+v", q, args)
	}
	q, args = g.Render(Question)
	if q != "SELECT ?, ?, ?" || len(args) != 3 || args[1].Param != -1 || args[2].Name != "k" {
		t.Errorf("Question with a returned value: %q %+v", q, args)
	}
}

func TestFormPerDialect(t *testing.T) {
	y := base + `transactions:
  - name: x
    statements:
      - sql: SELECT 1
        mysql: SELECT 2
`
	s, err := Parse("d.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	st := &s.Transactions[0].Statements[0]
	for d, want := range map[string]string{Postgres: "SELECT 1", MySQL: "SELECT 2", SQLite: "SELECT 1"} {
		if got := st.Form(d).SQL; got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}

func TestColumnsCounted(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want int
	}{
		{"SELECT a, b FROM t WHERE id = :id", 2},
		{"SELECT a FROM t", 1},
		{"select distinct a, coalesce(b, 0), count(*) from t group by a", 3},
		{"SELECT * FROM t", -1},
		{"SELECT t.*, x FROM t", -1},
		{"SELECT a * 2, b FROM t", 2},
		{"WITH c AS (SELECT x, y FROM t) SELECT x FROM c", 1},
		{"SELECT 1", 1},
		{"SELECT a INTO @v FROM t", 1},
		{"UPDATE t SET a = 1 WHERE id = :id RETURNING a, b", 2},
		{"INSERT INTO t (a, b) VALUES (:a, :b)", 0},
		{"INSERT INTO t (a, b) SELECT x, y FROM u RETURNING id", 1},
		{"CALL p(:x)", -1},
	} {
		a := analyze(tc.sql, Postgres)
		if got := a.columns(); got != tc.want {
			t.Errorf("columns(%q) = %d, want %d", tc.sql, got, tc.want)
		}
	}
}
