package runplan

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every Error: the command line is wrong (exit 2),
// and nothing was opened.
var ErrInvalid = errors.New("invalid options")

// Error holds the problems found in a command line, joined; its text is
// theirs, one per line.
type Error struct{ Err error }

func (e Error) Error() string        { return e.Err.Error() }
func (e Error) Unwrap() error        { return e.Err }
func (e Error) Is(target error) bool { return target == ErrInvalid }

// Invalidf returns an Error with a formatted message.
func Invalidf(format string, args ...any) error { return Error{fmt.Errorf(format, args...)} }
