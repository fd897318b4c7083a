package mysql

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/dialect"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		raw, redacted       string
		user, pw, net, addr string
		db, tls             string
		timeout             time.Duration
	}{
		{raw: "mysql://root@127.0.0.1:3306/", redacted: "mysql://root@127.0.0.1:3306/?tls=preferred",
			user: "root", net: "tcp", addr: "127.0.0.1:3306", tls: "preferred"},
		{raw: "mysql://u:p%40ss@db.example/sbtest?tls=false&timeout=5s", redacted: "mysql://u@db.example:3306/sbtest?timeout=5s&tls=false",
			user: "u", pw: "p@ss", net: "tcp", addr: "db.example:3306", db: "sbtest", tls: "false", timeout: 5 * time.Second},
		{raw: "mariadb://u:pw@[::1]:3307/d?interpolateParams=true", redacted: "mariadb://u@[::1]:3307/d?tls=preferred",
			user: "u", pw: "pw", net: "tcp", addr: "[::1]:3307", db: "d", tls: "preferred"},
		{raw: "mysql://u@/d?socket=/run/mysqld/mysqld.sock&tls=skip-verify", redacted: "mysql://u@/d?socket=%2Frun%2Fmysqld%2Fmysqld.sock&tls=skip-verify",
			user: "u", net: "unix", addr: "/run/mysqld/mysqld.sock", db: "d", tls: "skip-verify"},
		{raw: "mysql://", redacted: "mysql://127.0.0.1:3306/?tls=preferred", net: "tcp", addr: "127.0.0.1:3306", tls: "preferred"},
	} {
		target, err := Dialect{}.ParseTarget(tc.raw, nil)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", tc.raw, err)
			continue
		}
		cfg := target.Conn.(*mysql.Config)
		if target.Redacted != tc.redacted {
			t.Errorf("%q: Redacted = %q, want %q", tc.raw, target.Redacted, tc.redacted)
		}
		if cfg.User != tc.user || cfg.Passwd != tc.pw || cfg.Net != tc.net || cfg.Addr != tc.addr || cfg.DBName != tc.db || target.Database != tc.db {
			t.Errorf("%q: config %q %q %s(%s) %q", tc.raw, cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName)
		}
		if cfg.TLSConfig != tc.tls || cfg.Timeout != tc.timeout || cfg.InterpolateParams {
			t.Errorf("%q: tls %q timeout %v interpolate %v", tc.raw, cfg.TLSConfig, cfg.Timeout, cfg.InterpolateParams)
		}
		if tc.tls == "preferred" && (!cfg.AllowFallbackToPlaintext || cfg.TLS == nil) {
			t.Errorf("%q: preferred TLS not set up: fallback %v", tc.raw, cfg.AllowFallbackToPlaintext)
		}
	}
}

func TestParseTargetErrors(t *testing.T) {
	const pw = "Sup3rSecretPW"
	for _, raw := range []string{
		"postgres://u:" + pw + "@h/d",
		"mysql://u:" + pw + "@h:notaport/d",
		"mysql://u:" + pw + "@h/d?timeout=" + pw,
		"mysql://u:" + pw + "@h/d?tls=" + pw,
		"mysql://u:" + pw + "@h/d?readTimeout=x",
		"mysql://u:" + pw + "@h1,h2/d",
		"mysql://u:" + pw + "@h/d/e",
		"mysql://u:Sup3r%zzSecretPW@h/d",
		"mysql:u:" + pw,
		// A '?', '#' or '/' typed in the password ends the authority: the
		// rest of the password is in the query, fragment or path, and
		// would be printed with the target.
		"mysql://u:12?Sup3r=" + pw + "@h/d",
		"mysql://u:12?x=1&Sup3r" + pw + "@h/d",
		"mysql://u:12#Sup3r" + pw + "@h/d",
		"mysql://u:12/Sup3r" + pw + "@h/d",
		"mysql:?u:" + pw + "@h/d",
	} {
		_, err := Dialect{}.ParseTarget(raw, nil)
		if err == nil {
			t.Errorf("ParseTarget(%q) succeeded", raw)
			continue
		}
		if !errors.Is(err, dialect.ErrBadTarget) {
			t.Errorf("ParseTarget(%q) = %v, does not wrap ErrBadTarget", raw, err)
		}
		if strings.Contains(err.Error(), "Sup3r") || strings.Contains(err.Error(), "SecretPW") {
			t.Errorf("ParseTarget(%q) error contains the password: %v", raw, err)
		}
	}
}

func FuzzParseTarget(f *testing.F) {
	f.Add("root", "", "127.0.0.1:3306", "", "")
	f.Add("u", "p@ss:w/rd", "[::1]", "db", "tls=true&timeout=1s")
	f.Add("u", "pw", "h", "d", "socket=/tmp/s&x=%zz")
	f.Fuzz(func(t *testing.T, user, pass, host, db, query string) {
		secret := "PW{" + pass + "}"
		if strings.Contains(user+host+db+query, secret) || strings.ContainsAny(host, "@/?#") {
			t.Skip()
		}
		raw := "mysql://" + url.UserPassword(user, secret).String() + "@" + host + "/" + db + "?" + query
		target, err := Dialect{}.ParseTarget(raw, nil)
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
		if target.Conn.(*mysql.Config).Passwd != secret {
			t.Fatalf("password %q became %q", secret, target.Conn.(*mysql.Config).Passwd)
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

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"t": "`t`", "db.t": "`db`.`t`", "we`ird": "`we``ird`"} {
		if got := quoteIdent(in); got != want {
			t.Errorf("quoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIdentity: targets that name one database (host after its loopback
// names, port with its default, database, user) have one identity.
func TestIdentity(t *testing.T) {
	id := func(raw string) string {
		t.Helper()
		tg, err := Dialect{}.ParseTarget(raw, nil)
		if err != nil || tg.Identity == "" {
			t.Fatalf("%s: %v, identity %q", raw, err, tg.Identity)
		}
		return tg.Identity
	}
	one := id("mysql://root@localhost:3306/db")
	for _, raw := range []string{"mysql://root@127.0.0.1/db", "mariadb://root:pw@[::1]:3306/db?tls=false", "mysql://root@/db"} {
		if got := id(raw); got != one {
			t.Errorf("%s: identity %q, want %q", raw, got, one)
		}
	}
	for _, raw := range []string{"mysql://root@localhost:3307/db", "mysql://root@localhost/db2", "mysql://bob@localhost/db",
		"mysql://root@db1/db", "mysql://root@localhost/db?socket=/run/mysqld/mysqld.sock"} {
		if got := id(raw); got == one {
			t.Errorf("%s: the identity of mysql://root@localhost:3306/db, %q", raw, got)
		}
	}
}

// TestLocal: a loopback host or a socket is a server on this host, at the
// address it listens on; any other host is not.
func TestLocal(t *testing.T) {
	for raw, want := range map[string]dialect.Endpoint{
		"mysql://root@localhost/db":                                {Network: "tcp", Address: "localhost:3306"},
		"mariadb://root@127.0.0.1:3307/db":                         {Network: "tcp", Address: "127.0.0.1:3307"},
		"mysql://root@/db":                                         {Network: "tcp", Address: "127.0.0.1:3306"},
		"mysql://root@localhost/db?socket=/run/mysqld/mysqld.sock": {Network: "unix", Address: "/run/mysqld/mysqld.sock"},
		"mysql://root@db1.example.com/db":                          {},
	} {
		tg, err := Dialect{}.ParseTarget(raw, nil)
		if err != nil || tg.Local != want {
			t.Errorf("%s: local %+v (%v), want %+v", raw, tg.Local, err, want)
		}
	}
}
