package sqltext

import (
	"slices"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		sql    string
		fl     Flavor
		class  Class
		writes []string
		unread int
	}{
		{"SELECT * FROM t FOR UPDATE", Postgres, Read, nil, 0},
		{"(SELECT a FROM t) UNION (SELECT a FROM u)", Postgres, Read, nil, 0},
		{"VALUES (1)", Postgres, Read, nil, 0},
		{"WITH d AS (DELETE FROM t RETURNING id) SELECT * FROM d", Postgres, Write, []string{"t"}, 0},
		{"WITH x AS (SELECT 1) SELECT * FROM x FOR NO KEY UPDATE", Postgres, Read, nil, 0},
		{"INSERT INTO s.T VALUES (1)", Postgres, Write, []string{"s.t"}, 0},
		{`UPDATE "Mixed" SET a = 1`, Postgres, Write, []string{"Mixed"}, 0},
		{"INSERT INTO (SELECT 1)", Postgres, Write, nil, 1},
		{"REPLACE INTO t VALUES (1)", MySQL, Write, []string{"t"}, 0},
		{"DELETE t1, t2 FROM t1 JOIN t2 ON t1.id = t2.id", MySQL, Write, []string{"t1", "t2"}, 0},
		{"EXPLAIN ANALYZE DELETE FROM t", Postgres, Utility, []string{"t"}, 0},
		{"SET x = 1", Postgres, Utility, nil, 0},
		{"ROLLBACK TO SAVEPOINT s", Postgres, Utility, nil, 0},
		{"ROLLBACK", Postgres, Control, nil, 0},
		{"begin", Postgres, Control, nil, 0},
		{"DROP TABLE t", Postgres, DDL, nil, 0},
		{"CALL p(1)", Postgres, Opaque, nil, 0},
		{"VACUUM t", Postgres, Unknown, nil, 0},
		{"'x'", Postgres, Unknown, nil, 0},
	} {
		toks, _ := Lex(c.sql, c.fl)
		s := Classify(toks)
		if s.Class != c.class || !slices.Equal(s.Writes, c.writes) || s.Unread != c.unread {
			t.Errorf("Classify(%q) = %+v; want class %d, writes %v, unread %d", c.sql, s, c.class, c.writes, c.unread)
		}
	}
}

func TestSelectInto(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want string // the word after INTO, "" for none
	}{
		{"SELECT a INTO t FROM u", "t"},
		{"SELECT a FROM u INTO OUTFILE '/tmp/x'", "OUTFILE"},
		{"SELECT a INTO @v FROM u", ""},
		{"SELECT a INTO :v FROM u", ""},
		{"INSERT IGNORE INTO t SELECT 1", ""},
		{"SELECT (SELECT 1 INTO x) FROM t", ""},
	} {
		toks, _ := Lex(c.sql, MySQL)
		got := ""
		if i := SelectInto(toks); i >= 0 {
			got = toks[i].Text
		}
		if got != c.want {
			t.Errorf("SelectInto(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}

func TestDDLWord(t *testing.T) {
	if w := DDLWord("BEGIN PERFORM 1; drop table t; END"); w != "DROP" {
		t.Errorf("DDLWord = %q, want DROP", w)
	}
	if w := DDLWord("BEGIN PERFORM dropped(); END"); w != "" {
		t.Errorf("DDLWord = %q, want none", w)
	}
}
