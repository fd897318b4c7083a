package history

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzValidate: whatever form a catalog location takes (a postgres:// URL,
// well formed or not, with the password in its user info or its query, a
// libpq keyword string, an opaque URL), neither Redact nor Validate's error
// shows the password, and a refusal wraps ErrBadDSN. (FuzzRedact in
// internal/dialect fuzzes the redaction itself.)
func FuzzValidate(f *testing.F) {
	for _, s := range [][5]string{
		{"bob", "hunter2", "127.0.0.1:5432", "db", "0"},
		{"bob", "hun%ter2", "h", "db?sslmode=disable", "0"},
		{"bob", "p@ss:w/rd", "[::1]:5432", "db", "1"},
		{"", "x", "h", "sslmode=require", "2"},
		{"bob", "hunter2", "127.0.0.1", "dbname=x", "3"},
		{"bob", "hunter2", "127.0.0.1", "", "4"},
		{"bob", "hunter2", "h:99999", "db", "1"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4][0]-'0')
	}
	f.Fuzz(func(t *testing.T, user, pass, host, rest string, form uint8) {
		secret := "PW{" + pass + "}"
		if strings.Contains(user+host+rest, "PW{") {
			t.Skip()
		}
		var dsn string
		switch form % 5 {
		case 0: // as typed, perhaps not a valid URL
			dsn = "postgres://" + user + ":" + secret + "@" + host + "/" + rest
		case 1:
			dsn = "postgres://" + url.UserPassword(user, secret).String() + "@" + host + "/" + rest
		case 2:
			dsn = "postgresql://" + user + "@" + host + "/db?password=" + url.QueryEscape(secret) + "&" + rest
		case 3: // libpq keyword/value
			dsn = "host=" + host + " user=" + user + " password=" + secret + " " + rest
		case 4: // opaque
			dsn = "postgres:" + user + ":" + secret + "@" + host + rest
		}
		check := func(what, s string) {
			for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
				if strings.Contains(s, form) {
					t.Fatalf("%s of %q shows the password: %q", what, dsn, s)
				}
			}
		}
		check("Redact", Redact(dsn))
		if !strings.Contains(dsn, "/dev") && !strings.Contains(dsn, "/proc") {
			if err := Validate(dsn, nil); err != nil {
				if !errors.Is(err, ErrBadDSN) {
					t.Fatalf("Validate(%q) = %v, does not wrap ErrBadDSN", dsn, err)
				}
				check("Validate", err.Error())
			}
		}
	})
}
