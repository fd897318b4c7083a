package runplan

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// ErrInvalid is wrapped by every Error: the command line is wrong (exit 2),
// and nothing was opened.
var ErrInvalid = exitcode.New("invalid options", exitcode.Usage)

// Error holds the problems found in a command line, joined; its text is
// theirs, one per line.
type Error struct{ Err error }

func (e Error) Error() string        { return e.Err.Error() }
func (e Error) Unwrap() error        { return e.Err }
func (e Error) Is(target error) bool { return target == ErrInvalid }

// ExitCode: the command line is wrong (exit 2).
func (e Error) ExitCode() exitcode.Code { return exitcode.Usage }

// Invalidf returns an Error with a formatted message.
func Invalidf(format string, args ...any) error { return Error{fmt.Errorf(format, args...)} }
