package dialect

import (
	"net/url"
	"strings"
	"testing"
)

// redactSeeds start FuzzRedact: user, password, host, rest, form.
var redactSeeds = [][5]string{
	{"bob", "hunter2", "127.0.0.1:5432", "db", "0"},
	{"bob", "hun%ter2", "h", "db?sslmode=disable", "0"},
	{"bob", "p@ss:w/rd", "[::1]:5432", "db", "1"},
	{"", "x", "h", "sslmode=require", "2"},
	{"bob", "hunter2", "127.0.0.1", "dbname=x", "3"},
	{"bob", "hunter2", "127.0.0.1", "", "4"},
	{"bob", "hunter2", "h:99999", "db", "1"},
}

// fuzzLocation builds a location of one of five forms holding secret.
func fuzzLocation(user, secret, host, rest string, form uint8) string {
	switch form % 5 {
	case 0: // as typed, perhaps not a valid URL
		return "postgres://" + user + ":" + secret + "@" + host + "/" + rest
	case 1:
		return "postgres://" + url.UserPassword(user, secret).String() + "@" + host + "/" + rest
	case 2:
		return "postgresql://" + user + "@" + host + "/db?password=" + url.QueryEscape(secret) + "&" + rest
	case 3: // libpq keyword/value
		return "host=" + host + " user=" + user + " password=" + secret + " " + rest
	default: // opaque
		return "postgres:" + user + ":" + secret + "@" + host + rest
	}
}

// FuzzRedact: whatever form a location takes (a postgres:// URL, well
// formed or not, with the password in its user info or its query, a libpq
// keyword string, an opaque URL), neither Redact nor ScrubLocation (applied
// to a driver error that quotes the location) shows the password.
func FuzzRedact(f *testing.F) {
	for _, s := range redactSeeds {
		f.Add(s[0], s[1], s[2], s[3], s[4][0]-'0')
	}
	f.Fuzz(func(t *testing.T, user, pass, host, rest string, form uint8) {
		secret := "PW{" + pass + "}"
		if strings.Contains(user+host+rest, "PW{") {
			t.Skip()
		}
		raw := fuzzLocation(user, secret, host, rest, form)
		check := func(what, s string) {
			for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
				if strings.Contains(s, form) {
					t.Fatalf("%s of %q shows the password: %q", what, raw, s)
				}
			}
		}
		check("Redact", Redact(raw))
		check("ScrubLocation", ScrubLocation("cannot open "+raw+": refused", raw))
	})
}
