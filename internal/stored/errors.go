package stored

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// ErrUsage marks the errors that mean the command line named something
// wrongly (exit 2): an argument that names nothing, or something the
// command does not take, or the same measurement named twice. Every other
// error is a failure to read what was named (exit 1).
var ErrUsage = exitcode.New("usage", exitcode.Usage)

// usage is an error of the command line: its message is err's, and it is
// ErrUsage.
type usage struct{ err error }

func (u usage) Error() string   { return u.err.Error() }
func (u usage) Unwrap() []error { return []error{u.err, ErrUsage} }

func usagef(format string, args ...any) error { return usage{fmt.Errorf(format, args...)} }
