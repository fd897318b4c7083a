package all

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect"
)

// FuzzForURL: any text, through the dialect its scheme names: no panic; a
// refusal wraps ErrBadTarget; the password, given in the URL's user info or
// in PGPASSWORD, never shows in the printed target or in an error; and the
// printed target parses again to itself (a result's target can be reused).
func FuzzForURL(f *testing.F) {
	for _, s := range [][4]string{
		{"postgres", "u", "h:5432", "db?sslmode=disable"},
		{"postgresql", "", "[::1]", "?host=/tmp"},
		{"mysql", "root", "127.0.0.1:3306", "db?tls=false&timeout=1s"},
		{"mariadb", "u", "h:99999", "d"},
		{"mysql", "u", "h", "a/b"},
		{"sqlite", "", "", "./x.db"},
		{"ftp", "u", "h", "x"},
		{"postgres", "u", "h,h2", "d?a=%zz"},
	} {
		f.Add(s[0], s[1], "pw", s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, scheme, user, pass, host, rest string) {
		if strings.Contains(host+rest, "/dev") || strings.Contains(host+rest, "/proc") {
			t.Skip("no device files")
		}
		secret, envSecret := "PW{"+pass+"}", "EP{"+pass+"}"
		if strings.Contains(scheme+user+host+rest, "PW{") || strings.Contains(scheme+user+host+rest, "EP{") {
			t.Skip()
		}
		raw := scheme + "://" + url.UserPassword(user, secret).String() + "@" + host + "/" + rest
		if strings.EqualFold(scheme, "sqlite") {
			raw = scheme + ":" + rest // no user info in a file path
		}
		getenv := func(k string) string {
			if k == "PGPASSWORD" {
				return envSecret
			}
			return ""
		}
		check := func(what, s string) {
			for _, sec := range []string{secret, envSecret} {
				for _, form := range []string{sec, url.QueryEscape(sec), url.PathEscape(sec)} {
					if strings.Contains(s, form) {
						t.Fatalf("%s of %q shows the password: %q", what, raw, s)
					}
				}
			}
		}
		tg, d, err := ForURL(raw, getenv)
		if err != nil {
			if !errors.Is(err, dialect.ErrBadTarget) || tg != nil || d != nil {
				t.Fatalf("ForURL(%q) = %v, %v, %v", raw, tg, d, err)
			}
			check("the error", err.Error())
			return
		}
		check("the target", tg.String())
		if tg.Dialect != d.Name() {
			t.Fatalf("ForURL(%q): target of %s from dialect %s", raw, tg.Dialect, d.Name())
		}
		again, _, err := ForURL(tg.String(), nil)
		if err != nil || again.String() != tg.String() {
			t.Fatalf("ForURL(%q) prints %q, which parses to %v, %v", raw, tg.String(), again, err)
		}
	})
}
