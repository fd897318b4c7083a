package all

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/mysql"
	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/dialect/sqlite"
)

// All returns every dialect, in the order help texts list them. Dialects are
// stateless values; the slice is new on each call.
func All() []dialect.Dialect {
	return []dialect.Dialect{
		postgres.Dialect{},
		mysql.Dialect{},
		sqlite.Dialect{},
	}
}

// ForURL parses raw with the dialect whose scheme it starts with ("scheme:" or
// "scheme://", case-insensitive). Errors wrap dialect.ErrBadTarget and never
// contain the URL's password (only its scheme is quoted).
func ForURL(raw string, getenv func(string) string) (*dialect.Location, dialect.Dialect, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	scheme, ok := schemeOf(raw)
	if !ok {
		return nil, nil, fmt.Errorf("%w: a target is a URL such as %s", dialect.ErrBadTarget, examples())
	}
	d := forScheme(scheme)
	if d == nil {
		return nil, nil, fmt.Errorf("%w: unknown scheme %q (known: %s)", dialect.ErrBadTarget, scheme, strings.Join(Schemes(), ", "))
	}
	t, err := d.ParseTarget(raw, getenv)
	if err != nil {
		return nil, nil, err
	}
	return t, d, nil
}

// ForScheme returns the dialect whose scheme raw starts with, as ForURL
// finds it, without parsing the rest of raw; ok is false when there is none.
func ForScheme(raw string) (d dialect.Dialect, ok bool) {
	scheme, ok := schemeOf(raw)
	if !ok {
		return nil, false
	}
	d = forScheme(scheme)
	return d, d != nil
}

// schemeOf returns raw's scheme in lower case: what comes before its first
// ':', when that is a name.
func schemeOf(raw string) (string, bool) {
	scheme, _, ok := strings.Cut(raw, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/@?#") {
		return "", false
	}
	return strings.ToLower(scheme), true
}

func forScheme(scheme string) dialect.Dialect {
	for _, d := range All() {
		if slices.Contains(d.Schemes(), scheme) {
			return d
		}
	}
	return nil
}

// Schemes lists every scheme accepted by some dialect.
func Schemes() []string {
	var s []string
	for _, d := range All() {
		s = append(s, d.Schemes()...)
	}
	return s
}

func examples() string {
	var ex []string
	for _, s := range Schemes() {
		ex = append(ex, s+"://...")
	}
	return strings.Join(ex, " or ")
}
