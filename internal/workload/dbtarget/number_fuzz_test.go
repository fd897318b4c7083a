package dbtarget

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect"
)

// FuzzNumber: Number never panics; a refusal wraps ErrBadTarget and never
// shows the password; otherwise it gives n distinct targets, each parsing as
// the dialect of the one it came from, keeping its password, and never
// shows that password in its printed form.
func FuzzNumber(f *testing.F) {
	for _, s := range []struct {
		raw string
		n   uint8
	}{
		{"", 3}, {"sqlite:./fleet/", 2}, {"SQLite:/data/bench.db", 2}, {"sqlite:./a.b/bench", 2},
		{"postgres://u:SECRET@127.0.0.1:5432/sbtest?sslmode=disable", 4},
		{"mysql://root:SECRET@127.0.0.1:3306/db", 2}, {"mysql://u@h/", 2}, {"postgres://u:SECRET@h/a/b", 2},
		{"postgres://u@h/db?password=SECRET", 3}, {"host=x dbname=y", 2}, {"postgres://u:SECRET@h/db", 0},
	} {
		f.Add(s.raw, s.n)
	}
	f.Fuzz(func(t *testing.T, raw string, n uint8) {
		if strings.Contains(raw, "/dev") || strings.Contains(raw, "/proc") {
			t.Skip("no device files")
		}
		count := int(n % 12)
		secret, rest := "", ""
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			secret, _ = u.User.Password()
			u.User = nil
			rest = u.String() // the rest as printed: escaped
		}
		if len(secret) < 4 || strings.Count(raw, secret) > 1 || strings.Contains(rest, secret) {
			// Too short to tell apart from the rest, or in the rest too
			// (postgres://0:0000@h/00%200001: "%20" + "0001" holds "0000").
			secret = ""
		}
		out, err := Number(raw, "sbtest", count)
		if err != nil {
			if !errors.Is(err, dialect.ErrBadTarget) || out != nil {
				t.Fatalf("Number(%q, %d) = %q, %v", raw, count, out, err)
			}
			if secret != "" && strings.Contains(err.Error(), secret) {
				t.Fatalf("Number(%q, %d): the error shows the password: %v", raw, count, err)
			}
			return
		}
		if len(out) != count {
			t.Fatalf("Number(%q, %d) gave %d targets", raw, count, len(out))
		}
		first, _ := Parse(raw, DefaultSQLite("sbtest", 0), noEnv)
		seen := map[string]bool{}
		for i, o := range out {
			tg, err := Parse(o, DefaultSQLite("sbtest", i), noEnv)
			if err != nil {
				if first == nil {
					continue // raw itself is not a target: parseTargets reports it
				}
				t.Fatalf("Number(%q, %d)[%d] = %q does not parse: %v", raw, count, i, o, err)
			}
			if first != nil && tg.D.Name() != first.D.Name() {
				t.Fatalf("Number(%q)[%d] = %q is %s, not %s", raw, i, o, tg.D.Name(), first.D.Name())
			}
			if secret != "" && strings.Contains(tg.String(), secret) {
				t.Fatalf("Number(%q)[%d] prints as %q", raw, i, tg.String())
			}
			if secret != "" {
				if u, err := url.Parse(o); err != nil || u.User == nil {
					t.Fatalf("Number(%q)[%d] = %q: %v", raw, i, o, err)
				} else if pw, _ := u.User.Password(); pw != secret {
					t.Fatalf("Number(%q)[%d] = %q lost the password", raw, i, o)
				}
			}
			if count > 1 && seen[tg.String()] {
				t.Fatalf("Number(%q, %d): %q twice", raw, count, tg.String())
			}
			seen[tg.String()] = true
		}
	})
}
