package all

import (
	"errors"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect"
)

func TestAllUnique(t *testing.T) {
	names, schemes := map[string]bool{}, map[string]string{}
	for _, d := range All() {
		if names[d.Name()] {
			t.Errorf("dialect %s listed twice", d.Name())
		}
		names[d.Name()] = true
		for _, s := range d.Schemes() {
			if o, dup := schemes[s]; dup {
				t.Errorf("scheme %s claimed by %s and %s", s, o, d.Name())
			}
			schemes[s] = d.Name()
		}
	}
	if !names["sqlite"] {
		t.Error("sqlite missing")
	}
}

func TestForURL(t *testing.T) {
	tg, d, err := ForURL("sqlite:./x.db", nil)
	if err != nil || d.Name() != "sqlite" || tg.Database != "x.db" {
		t.Fatalf("ForURL(sqlite) = %+v, %v, %v", tg, d, err)
	}
	if _, d, err := ForURL("SQLITE:///tmp/x.db", nil); err != nil || d.Name() != "sqlite" {
		t.Fatalf("upper-case scheme: %v, %v", d, err)
	}
	for _, raw := range []string{"", "x.db", "/tmp/x.db", "oracle://u:secret@h/db", "user:secret@host/db"} {
		_, _, err := ForURL(raw, nil)
		if !errors.Is(err, dialect.ErrBadTarget) {
			t.Errorf("ForURL(%q) = %v, want ErrBadTarget", raw, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ForURL(%q) error leaks the password: %v", raw, err)
		}
	}
	for _, d := range All() {
		for _, s := range d.Schemes() {
			raw := s + "://user:secret@127.0.0.1/db"
			if s == "sqlite" {
				continue
			}
			tg, got, err := ForURL(raw, func(string) string { return "" })
			if err != nil {
				t.Errorf("ForURL(%s://...): %v", s, err)
				continue
			}
			if got.Name() != d.Name() || strings.Contains(tg.String(), "secret") {
				t.Errorf("ForURL(%s://...) = %s, %s", s, got.Name(), tg)
			}
		}
	}
}

func TestForScheme(t *testing.T) {
	for raw, want := range map[string]string{
		"sqlite:x.db": "sqlite", "SQLite:///x.db": "sqlite", "postgres://h/db": "postgres", "postgresql:opaque": "postgres",
		"mariadb://h/db": "mysql", "oracle://h/db": "", "": "", "x.db": "", "h/p:x": "", "user:pw@host/db": "",
	} {
		d, ok := ForScheme(raw)
		got := ""
		if ok {
			got = d.Name()
		}
		if got != want || ok != (d != nil) {
			t.Errorf("ForScheme(%q) = %v, %v; want %q", raw, d, ok, want)
		}
	}
}
