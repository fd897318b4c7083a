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
func ForURL(raw string, getenv func(string) string) (*dialect.Target, dialect.Dialect, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	scheme, _, ok := strings.Cut(raw, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/@?#") {
		return nil, nil, fmt.Errorf("%w: a target is a URL such as %s", dialect.ErrBadTarget, examples())
	}
	scheme = strings.ToLower(scheme)
	for _, d := range All() {
		if slices.Contains(d.Schemes(), scheme) {
			t, err := d.ParseTarget(raw, getenv)
			if err != nil {
				return nil, nil, err
			}
			return t, d, nil
		}
	}
	return nil, nil, fmt.Errorf("%w: unknown scheme %q (known: %s)", dialect.ErrBadTarget, scheme, strings.Join(Schemes(), ", "))
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
