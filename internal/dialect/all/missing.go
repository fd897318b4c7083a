package all

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/errclass"
)

// Missing reports whether err is the server of one of targets (URLs, or
// values that print as one) saying that the database, or a table of it,
// does not exist.
func Missing[T fmt.Stringer](targets []T, err error) bool {
	for _, t := range targets {
		if d, ok := ForScheme(t.String()); ok && d.Classify(err) == errclass.Missing {
			return true
		}
	}
	return false
}
