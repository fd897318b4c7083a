package postgres

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/dialect"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func parse(t *testing.T, raw string, getenv func(string) string) (*dialect.Location, *pgx.ConnConfig) {
	t.Helper()
	target, err := Dialect{}.ParseTarget(raw, getenv)
	if err != nil {
		t.Fatalf("ParseTarget(%q): %v", raw, err)
	}
	return target, target.Conn.(*pgx.ConnConfig)
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		env       map[string]string
		redacted  string
		host      string
		port      uint16
		user, pw  string
		db        string
		tls       bool // first attempt uses TLS
		fallback  bool // a plain-text attempt follows
	}{
		{name: "url", raw: "postgres://u:pw@db.example:5433/app",
			redacted: "postgres://u@db.example:5433/app?sslmode=prefer",
			host:     "db.example", port: 5433, user: "u", pw: "pw", db: "app", tls: true, fallback: true},
		{name: "postgresql scheme and escapes", raw: "postgresql://u%40x:p%2Fw%3A@[::1]/my%20db?sslmode=require",
			redacted: "postgresql://u%40x@[::1]:5432/my%20db?sslmode=require",
			host:     "::1", port: 5432, user: "u@x", pw: "p/w:", db: "my db", tls: true},
		{name: "env only", raw: "postgres://",
			env:      map[string]string{"PGHOST": "envhost", "PGPORT": "6000", "PGUSER": "eu", "PGPASSWORD": "epw", "PGDATABASE": "edb", "PGSSLMODE": "disable"},
			redacted: "postgres://eu@envhost:6000/edb?sslmode=disable",
			host:     "envhost", port: 6000, user: "eu", pw: "epw", db: "edb"},
		{name: "url wins over env", raw: "postgres://u:pw@h:7000/d?sslmode=require",
			env:      map[string]string{"PGHOST": "envhost", "PGPORT": "6000", "PGUSER": "eu", "PGPASSWORD": "epw", "PGDATABASE": "edb", "PGSSLMODE": "disable"},
			redacted: "postgres://u@h:7000/d?sslmode=require",
			host:     "h", port: 7000, user: "u", pw: "pw", db: "d", tls: true},
		{name: "query password and params", raw: "postgres://u@h/d?password=qpw&application_name=rs&sslpassword=x",
			redacted: "postgres://u@h:5432/d?application_name=rs&sslmode=prefer",
			host:     "h", port: 5432, user: "u", pw: "qpw", db: "d", tls: true, fallback: true},
		{name: "socket", raw: "postgres://u@/d?host=/var/run/postgresql&sslmode=disable",
			redacted: "postgres://u@/d?host=%2Fvar%2Frun%2Fpostgresql&sslmode=disable",
			host:     "/var/run/postgresql", port: 5432, user: "u", db: "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, cfg := parse(t, tc.raw, env(tc.env))
			if target.Redacted != tc.redacted {
				t.Errorf("Redacted = %q, want %q", target.Redacted, tc.redacted)
			}
			if target.String() != target.Redacted || target.Dialect != "postgres" {
				t.Errorf("String() = %q, Dialect = %q", target.String(), target.Dialect)
			}
			if cfg.Host != tc.host || cfg.Port != tc.port || cfg.User != tc.user || cfg.Password != tc.pw || cfg.Database != tc.db || target.Database != tc.db {
				t.Errorf("config = %s:%d user %q password %q db %q (target db %q)", cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database, target.Database)
			}
			if (cfg.TLSConfig != nil) != tc.tls {
				t.Errorf("TLS = %v, want %v", cfg.TLSConfig != nil, tc.tls)
			}
			if fb := len(cfg.Fallbacks) > 0 && cfg.Fallbacks[0].TLSConfig == nil; fb != tc.fallback {
				t.Errorf("plain-text fallback = %v, want %v", fb, tc.fallback)
			}
			if cfg.DefaultQueryExecMode != pgx.QueryExecModeCacheStatement {
				t.Errorf("DefaultQueryExecMode = %v", cfg.DefaultQueryExecMode)
			}
			if tc.pw != "" && strings.Contains(target.Redacted, tc.pw) {
				t.Errorf("Redacted %q contains the password", target.Redacted)
			}
		})
	}
}

// TestParseTargetIgnoresProcessEnv sets libpq variables in the real
// environment and checks that only getenv counts.
func TestParseTargetIgnoresProcessEnv(t *testing.T) {
	for k, v := range map[string]string{
		"PGHOST": "realhost", "PGPORT": "6543", "PGUSER": "realuser", "PGPASSWORD": "realpw",
		"PGDATABASE": "realdb", "PGSSLMODE": "verify-full", "PGAPPNAME": "realapp", "PGTZ": "Mars/Olympus",
		"PGOPTIONS": "-c work_mem=1", "PGTARGETSESSIONATTRS": "read-write", "PGCONNECT_TIMEOUT": "3",
		"PGSSLROOTCERT": "/nonexistent/root.crt", "PGPASSFILE": "/nonexistent/pgpass",
	} {
		t.Setenv(k, v)
	}
	_, cfg := parse(t, "postgres://u@h/d", env(nil))
	if cfg.Host != "h" || cfg.Port != 5432 || cfg.User != "u" || cfg.Password != "" || cfg.Database != "d" {
		t.Errorf("process environment leaked: %s:%d %q %q %q", cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database)
	}
	if len(cfg.RuntimeParams) != 0 {
		t.Errorf("RuntimeParams = %v, want none", cfg.RuntimeParams)
	}
	if cfg.ValidateConnect != nil || cfg.ConnectTimeout != 0 {
		t.Errorf("target_session_attrs or connect_timeout leaked")
	}
	if cfg.TLSConfig == nil || !cfg.TLSConfig.InsecureSkipVerify {
		t.Errorf("sslmode leaked: want prefer (TLS without verification)")
	}
	// The same variables through getenv do count.
	t.Setenv("PGSSLROOTCERT", "")
	t.Setenv("PGSSLMODE", "disable")
	_, cfg = parse(t, "postgres://", os.Getenv)
	if cfg.Host != "realhost" || cfg.User != "realuser" || cfg.Password != "realpw" || cfg.RuntimeParams["application_name"] != "realapp" {
		t.Errorf("getenv ignored: %s %q %q %v", cfg.Host, cfg.User, cfg.Password, cfg.RuntimeParams)
	}
}

func TestParseTargetPassfile(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(pf, []byte("h:5432:d:u:filepw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target, cfg := parse(t, "postgres://u@h/d", env(map[string]string{"PGPASSFILE": pf}))
	if cfg.Password != "filepw" || strings.Contains(target.Redacted, "filepw") {
		t.Errorf("password %q, redacted %q", cfg.Password, target.Redacted)
	}
	// HOME from getenv gives the default ~/.pgpass.
	if err := os.WriteFile(filepath.Join(dir, ".pgpass"), []byte("*:*:*:*:homepw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, cfg = parse(t, "postgres://u@h/d", env(map[string]string{"HOME": dir})); cfg.Password != "homepw" {
		t.Errorf("password from $HOME/.pgpass = %q", cfg.Password)
	}
	if _, cfg = parse(t, "postgres://u@h/d", env(nil)); cfg.Password != "" {
		t.Errorf("password without HOME or PGPASSFILE = %q", cfg.Password)
	}
}

func TestParseTargetErrors(t *testing.T) {
	const pw = "Sup3rSecretPW"
	for _, tc := range []struct {
		raw string
		env map[string]string
	}{
		{raw: "mysql://u:" + pw + "@h/d"},
		{raw: "postgres://u:" + pw + "@h:notaport/d"},
		{raw: "postgres://u:" + pw + "@h:99999/d"},
		{raw: "postgres://u:" + pw + "@h/d?sslmode=bogus"},
		{raw: "postgres://u@h/d?sslmode=bogus&password=" + pw},
		{raw: "postgres://u@h/d?sslmode=bogus", env: map[string]string{"PGPASSWORD": pw}},
		{raw: "postgres://u:" + pw + "@h/d?target_session_attrs=" + pw},
		{raw: "postgres://u:" + pw + "@h1,h2/d"},
		{raw: "postgres://u:" + pw + "@h/d?bad%20key=1"},
		{raw: "postgres://u:" + pw + "@h/d?sslrootcert=/nonexistent/" + pw},
		{raw: "postgres://u:Sup3r%zzSecretPW@h/d"},
		{raw: "postgres://u:" + pw + "/@h/d"},
		{raw: "postgres:u:" + pw},
		{raw: "::" + pw},
		// No "//": the user info is in the query (history's FuzzValidate).
		{raw: "postgres:?:" + pw + "@h"},
		// A '?' typed in the password ends the authority: the rest of the
		// password is in a parameter name.
		{raw: "postgres://u:12?Sup3r-" + pw + "@h/d"},
		{raw: "postgres://u@h:1/d?x=1&Sup3r" + pw + "@h"},
		{raw: "postgres://u:12?application_name=Sup3r" + pw + "@h/d"},
		{raw: "postgres://u:12#Sup3r" + pw + "@h/d"},
		{raw: "postgres://u:12/Sup3r" + pw + "@h/d"},
	} {
		_, err := Dialect{}.ParseTarget(tc.raw, env(tc.env))
		if err == nil {
			t.Errorf("ParseTarget(%q) succeeded", tc.raw)
			continue
		}
		if !errors.Is(err, dialect.ErrBadTarget) {
			t.Errorf("ParseTarget(%q) = %v, does not wrap ErrBadTarget", tc.raw, err)
		}
		if strings.Contains(err.Error(), "Sup3r") || strings.Contains(err.Error(), "SecretPW") {
			t.Errorf("ParseTarget(%q) error contains the password: %v", tc.raw, err)
		}
	}
}

// FuzzParseTarget checks that ParseTarget never panics and that the password
// never shows in the redacted URL or an error.
func FuzzParseTarget(f *testing.F) {
	f.Add("u", "pw", "h:5432", "db", "sslmode=require")
	f.Add("", "p@ss:w/rd", "[::1]", "", "password=x")
	f.Add("u", "'\\", "h", "d", "sslmode=bogus")
	f.Add("u", "pw", "h,h2", "d%zz", "a=%")
	f.Fuzz(func(t *testing.T, user, pass, host, db, query string) {
		if strings.Contains(host+db+query, "/dev") || strings.Contains(host+db+query, "/proc") {
			t.Skip("no device files")
		}
		secret := "PW{" + pass + "}"
		if strings.Contains(user+host+db+query, secret) {
			t.Skip()
		}
		raw := "postgres://" + url.UserPassword(user, secret).String() + "@" + host + "/" + db + "?" + query
		target, err := Dialect{}.ParseTarget(raw, env(nil))
		check := func(s string) {
			for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
				if strings.Contains(s, form) {
					t.Fatalf("password %q shows in %q", secret, s)
				}
			}
		}
		if err != nil {
			check(err.Error())
			if !errors.Is(err, dialect.ErrBadTarget) {
				t.Fatalf("error does not wrap ErrBadTarget: %v", err)
			}
			return
		}
		check(target.Redacted)
		u, err := url.Parse(target.Redacted)
		if err != nil {
			t.Fatalf("Redacted %q does not parse: %v", target.Redacted, err)
		}
		if _, ok := u.User.Password(); ok {
			t.Fatalf("Redacted %q has a password", target.Redacted)
		}
	})
}

// FuzzParseTargetRaw feeds arbitrary text: no panics, and a parsed target's
// redacted URL carries no password.
func FuzzParseTargetRaw(f *testing.F) {
	f.Add("postgres://u:pw@h:5432/db?sslmode=disable")
	f.Add("postgresql:///db?host=/tmp")
	f.Add("postgres://%zz@h")
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.Contains(raw, "/dev") || strings.Contains(raw, "/proc") {
			t.Skip("no device files")
		}
		target, err := Dialect{}.ParseTarget(raw, env(nil))
		if err != nil {
			return
		}
		u, err := url.Parse(target.Redacted)
		if err != nil {
			t.Fatalf("Redacted %q does not parse: %v", target.Redacted, err)
		}
		if _, ok := u.User.Password(); ok {
			t.Fatalf("Redacted %q has a password", target.Redacted)
		}
	})
}

// TestParseTargetCacheSizes: pgx's statement caches are sized for the
// ad-hoc statements rightsize sends (its workloads prepare theirs), unless
// the URL sizes them.
func TestParseTargetCacheSizes(t *testing.T) {
	for _, tc := range []struct {
		query       string
		stmt, descr int
	}{
		{"", statementCacheCapacity, 0},
		{"?statement_cache_capacity=100", 100, 0},
		{"?description_cache_capacity=7", statementCacheCapacity, 7},
		{"?default_query_exec_mode=cache_describe", statementCacheCapacity, statementCacheCapacity},
		{"?default_query_exec_mode=cache_describe&statement_cache_capacity=0&description_cache_capacity=9", 0, 9},
	} {
		_, cfg := parse(t, "postgres://u@h/d"+tc.query, env(nil))
		if cfg.StatementCacheCapacity != tc.stmt || cfg.DescriptionCacheCapacity != tc.descr {
			t.Errorf("%q: statement cache %d, description cache %d; want %d, %d",
				tc.query, cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity, tc.stmt, tc.descr)
		}
	}
}

// TestIdentity: targets that name one database (host after its loopback
// names, port with its default, database, user) have one identity, whatever
// their text; a different port, database, user or host is another.
func TestIdentity(t *testing.T) {
	id := func(raw string) string {
		t.Helper()
		tg, _ := parse(t, raw, nil)
		if tg.Identity == "" {
			t.Fatalf("%s: no identity", raw)
		}
		return tg.Identity
	}
	one := id("postgres://postgres@localhost:5432/db")
	for _, raw := range []string{"postgres://postgres@127.0.0.1/db", "postgresql://postgres:secret@[::1]:5432/db?sslmode=disable",
		"postgres://postgres@LOCALHOST/db?application_name=x", "postgres://127.0.0.1/db?user=postgres"} {
		if got := id(raw); got != one {
			t.Errorf("%s: identity %q, want %q (that of postgres://postgres@localhost:5432/db)", raw, got, one)
		}
	}
	for _, raw := range []string{"postgres://postgres@localhost:5433/db", "postgres://postgres@localhost/db2",
		"postgres://bob@localhost/db", "postgres://postgres@db1/db", "postgres://postgres@/db?host=/var/run/postgresql"} {
		if got := id(raw); got == one {
			t.Errorf("%s: the identity of postgres://postgres@localhost:5432/db, %q", raw, got)
		}
	}
	if got := id("postgres://postgres:hunter2@localhost/db"); strings.Contains(got, "hunter2") {
		t.Errorf("identity %q holds the password", got)
	}
}

// TestLocal: a loopback host or a socket directory is a server on this
// host, at the address it listens on; any other host is not.
func TestLocal(t *testing.T) {
	for raw, want := range map[string]dialect.Endpoint{
		"postgres://postgres@localhost/db":                 {Network: "tcp", Address: "localhost:5432"},
		"postgres://postgres@127.0.0.1:5433/db":            {Network: "tcp", Address: "127.0.0.1:5433"},
		"postgres://postgres@[::1]/db":                     {Network: "tcp", Address: "[::1]:5432"},
		"postgres://postgres@/db?host=/var/run/postgresql": {Network: "unix", Address: "/var/run/postgresql/.s.PGSQL.5432"},
		"postgres://postgres@/db?host=/tmp/&port=6000":     {Network: "unix", Address: "/tmp/.s.PGSQL.6000"},
		"postgres://postgres@db1.example.com/db":           {},
		"postgres://postgres@10.0.0.5/db":                  {},
	} {
		tg, _ := parse(t, raw, nil)
		if tg.Local != want {
			t.Errorf("%s: local %+v, want %+v", raw, tg.Local, want)
		}
	}
}
