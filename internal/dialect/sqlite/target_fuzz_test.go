package sqlite

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect"
)

// FuzzParseTarget: no panic; a refusal wraps ErrBadTarget; an accepted
// target names a clean file path (no query, fragment, NUL, directory or
// in-memory database), prints as sqlite:PATH, and that printed form parses
// back to the same file. An input without the sqlite: scheme is tried with
// it too, so that the fuzzer explores paths (as history's FuzzSQLitePath
// did for the catalog's own parser, which this one replaced; its inputs are
// among the seeds).
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{
		"sqlite:bench.db", "sqlite:./data/bench.db", "sqlite://data/bench.db", "sqlite:///abs/bench.db",
		"SQLite:x.db", "sqlite:with%20space.db", "sqlite:", "sqlite::memory:", "sqlite:x.db?mode=ro",
		"sqlite:dir/", "sqlite:file:x.db", "sqlite:a#b", "sqlite:a%3Fb", "sqlite:a%23b", "sqlite:%00", "sqlite:a/../..", "sqlite:%2e%2e/", "sqlite:////x", "sqlite:.", "sqlite:a/..", "sqlite:/tmp/x/..", "sqlite:/tmp/.",
		"sqlite:h.db", "sqlite:///abs/h.db", "sqlite://rel/h.db", "sqlite:a?b", "sqlite:%2Ftmp%2Fx.db", "SQLite:x%00y", "sqlite:%zz", "sqlite:/..",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkTarget(t, raw)
		if !strings.HasPrefix(strings.ToLower(raw), "sqlite:") {
			checkTarget(t, "sqlite:"+raw)
		}
	})
}

// checkTarget holds ParseTarget(raw) to FuzzParseTarget's properties.
func checkTarget(t *testing.T, raw string) {
	t.Helper()
	tg, err := Dialect{}.ParseTarget(raw, nil)
	if err != nil {
		if !errors.Is(err, dialect.ErrBadTarget) || tg != nil {
			t.Fatalf("ParseTarget(%q) = %v, %v", raw, tg, err)
		}
		return
	}
	p := tg.Database
	if b := filepath.Base(p); p == "" || p != filepath.Clean(p) || p == ":memory:" || strings.ContainsAny(p, "?#\x00") || b == "." || b == ".." || b == "/" {
		t.Fatalf("ParseTarget(%q): path %q", raw, p)
	}
	if tg.Dialect != "sqlite" || tg.String() != "sqlite:"+p {
		t.Fatalf("ParseTarget(%q) = %+v", raw, tg)
	}
	if _, err := targetConfig(tg); err != nil {
		t.Fatal(err)
	}
	if b := filepath.Base(strings.TrimPrefix(strings.TrimPrefix(raw[len("sqlite:"):], "//"), "/")); b == "." || b == ".." {
		t.Fatalf("ParseTarget(%q) = %q: the path ends in a directory", raw, p)
	}
	if strings.Contains(p, "%") {
		return // printed as is, not escaped: a second parse would decode it
	}
	back, err := Dialect{}.ParseTarget(tg.String(), nil)
	if err != nil || back.Database != p {
		t.Fatalf("ParseTarget(%q) = %q; its String %q parses to %v, %v", raw, p, tg.String(), back, err)
	}
}
