package dialect

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestHostInPath: a URL with no host whose path begins with a host (a slash
// too few or too many after the scheme) is refused with the URL meant; a
// database name, even a dotted one, is not.
func TestHostInPath(t *testing.T) {
	for raw, want := range map[string]string{
		"postgres:/127.0.0.1/db":                    "did you mean postgres://127.0.0.1/db?",
		"postgres:///127.0.0.1/db":                  "did you mean postgres://127.0.0.1/db?",
		"postgresql:///127.0.0.1:5432/db?sslmode=x": "did you mean postgresql://127.0.0.1:5432/db?",
		"postgres:///db.example.com/sales":          `"db.example.com" is in the URL's path`,
		"postgres:///localhost/sales":               "did you mean postgres://localhost/sales?",
		"postgres:///localhost:5432":                "did you mean postgres://localhost:5432/?",
		"postgres:///10.0.0.5":                      "did you mean postgres://10.0.0.5/?",
		"postgres:///[::1]:5432/db":                 "did you mean postgres://[::1]:5432/db?",
		"postgres:///::1/db":                        "did you mean postgres://[::1]/db?",
		"mysql:///127.0.0.1:3306/db":                "did you mean mysql://127.0.0.1:3306/db?",
		"mysql:/127.0.0.1/db":                       "did you mean mysql://127.0.0.1/db?",
		"postgres://bob:hunter2@/127.0.0.1/db":      "did you mean postgres://bob@127.0.0.1/db?",
		"postgres:///127.0.0.1/u:hunter2@db":        "did you mean postgres://127.0.0.1/DATABASE?",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		err = HostInPath("postgres", u)
		if err == nil || !errors.Is(err, ErrBadTarget) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want ErrBadTarget saying %q", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the password is shown: %v", raw, err)
		}
	}
	for _, raw := range []string{
		"postgres://127.0.0.1/db", "postgres:///db", "postgres:///my.app", "postgres:///", "postgres://", "postgres:///db?host=/tmp",
		"mysql://127.0.0.1:3306/db", "mysql:///test", "postgres:///sales_2024", "postgres:///a-b/c", "postgres:///5432/db",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := HostInPath("postgres", u); err != nil {
			t.Errorf("%s: %v; want it accepted", raw, err)
		}
	}
}

func FuzzHostInPath(f *testing.F) {
	for _, s := range []string{"postgres:///127.0.0.1/db", "postgres://u:pw@/h.x/db", "mysql:/[::1]:1/x", "postgres:///x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		err = HostInPath("postgres", u)
		if err == nil {
			return
		}
		// The message quotes the path's host, the rest of a plain path and
		// the user name only.
		if pw, ok := u.User.Password(); ok && len(pw) > 3 && strings.Contains(err.Error(), pw) &&
			!strings.Contains(u.Path+u.Opaque+u.User.Username()+"postgres: DATABASE", pw) {
			t.Fatalf("%q: the password is shown: %v", raw, err)
		}
	})
}
