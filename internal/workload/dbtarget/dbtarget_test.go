package dbtarget

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

// noEnv parses with an empty environment and the dialects' default
// connect timeout.
var noEnv = workload.TargetOptions{Getenv: func(string) string { return "" }}

func TestParseAndDefaults(t *testing.T) {
	if got := DefaultSQLite("tpcc", 0); got != "sqlite:./rightsize-data/tpcc.db" {
		t.Errorf("DefaultSQLite(tpcc, 0) = %q", got)
	}
	if got := DefaultSQLite("tpcc", 3); got != "sqlite:./rightsize-data/tpcc-3.db" {
		t.Errorf("DefaultSQLite(tpcc, 3) = %q", got)
	}
	tg, err := Parse("  ", "sqlite:/tmp/x.db", noEnv)
	if err != nil || tg.D.Name() != "sqlite" {
		t.Fatalf("empty target: %v, %v", tg, err)
	}
	if _, err := Parse("oracle://x", "", noEnv); !errors.Is(err, dialect.ErrBadTarget) {
		t.Errorf("unknown scheme: %v, want ErrBadTarget", err)
	}
	pg, err := Parse("postgres://bob:secret@127.0.0.1:1/db", "", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s := pg.String(); s == "" || strings.Contains(s, "secret") {
		t.Errorf("String() = %q shows the password", s)
	}
	if pg.T.ConnectTimeout != 0 {
		t.Errorf("connect timeout %v, want 0 (the dialect's default)", pg.T.ConnectTimeout)
	}
	// The connect timeout reaches the dialect's target.
	pg, err = Parse("postgres://bob@127.0.0.1:1/db", "", workload.TargetOptions{ConnectTimeout: 3 * time.Second})
	if err != nil || pg.T.ConnectTimeout != 3*time.Second {
		t.Errorf("connect timeout %v (%v), want 3s", pg.T.ConnectTimeout, err)
	}
}

func TestLoaders(t *testing.T) {
	lite, _ := Parse("sqlite:/tmp/x.db", "", noEnv)
	pg, _ := Parse("postgres://u@127.0.0.1:1/db", "", noEnv)
	var a, b Base
	a.Init(lite)
	b.Init(pg)
	for _, c := range []struct {
		in                        *Base
		threads, def, units, want int
	}{
		{&a, 8, 4, 10, 1}, // one writer at a time
		{&b, 0, 4, 10, 4},
		{&b, 8, 4, 10, 8},
		{&b, 8, 4, 3, 3},
		{&b, 0, 4, 0, 1},
	} {
		if got := c.in.Loaders(c.threads, c.def, c.units); got != c.want {
			t.Errorf("Loaders(%d, %d, %d) on %s = %d, want %d", c.threads, c.def, c.units, c.in.Target.D.Name(), got, c.want)
		}
	}
	if info := a.Info(); info.Dialect != "sqlite" || len(info.Notes) == 0 {
		t.Errorf("Info() = %+v: want the dialect and its notes", info)
	}
	a.Note("x")
	a.Note("x")
	if n := len(a.Info().Notes); n != len(lite.D.Capabilities().Notes)+1 {
		t.Errorf("a note added twice: %d notes", n)
	}
}

func TestNumber(t *testing.T) {
	cases := []struct {
		raw  string
		n    int
		want []string
	}{
		{"", 3, []string{"sqlite:./rightsize-data/sbtest.db", "sqlite:./rightsize-data/sbtest-1.db", "sqlite:./rightsize-data/sbtest-2.db"}},
		{"sqlite:./fleet/", 2, []string{"sqlite:./fleet/sbtest-1.db", "sqlite:./fleet/sbtest-2.db"}},
		{"SQLite:/data/bench.db", 2, []string{"SQLite:/data/bench-1.db", "SQLite:/data/bench-2.db"}},
		{"sqlite:./a.b/bench", 2, []string{"sqlite:./a.b/bench-1", "sqlite:./a.b/bench-2"}},
		{"postgres://u:secret@127.0.0.1:5432/sbtest?sslmode=disable", 2, []string{
			"postgres://u:secret@127.0.0.1:5432/sbtest_1?sslmode=disable", "postgres://u:secret@127.0.0.1:5432/sbtest_2?sslmode=disable"}},
		{"mysql://root@127.0.0.1:3306/db", 1, []string{"mysql://root@127.0.0.1:3306/db"}},
	}
	for _, c := range cases {
		got, err := Number(c.raw, "sbtest", c.n)
		if err != nil || strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("Number(%q, %d) = %q, %v; want %q", c.raw, c.n, got, err, c.want)
		}
	}
	for _, bad := range []string{"postgres://u:secret@127.0.0.1:5432", "postgres://u:secret@127.0.0.1/a/b", "host=x dbname=y",
		"postgres://u@127.0.0.1/a/b?sslmode=disable&password=secret", "mysql://u@127.0.0.1/?password=secret"} {
		_, err := Number(bad, "sbtest", 4)
		if !errors.Is(err, dialect.ErrBadTarget) || strings.Contains(err.Error(), "secret") {
			t.Errorf("Number(%q): %v; want ErrBadTarget without the password", bad, err)
		}
	}
	if _, err := Number("sqlite:x.db", "sbtest", 0); !errors.Is(err, dialect.ErrBadTarget) {
		t.Errorf("n = 0: %v", err)
	}
}
