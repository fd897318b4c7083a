// Package exitcode attaches the process's exit code to an error where the
// error is made (k6's errext), so that the command's edge reads the code
// from the error instead of listing every package's sentinel errors.
//
// An error says its code by implementing Coder; With marks any error, New
// makes a sentinel that errors.Is still matches, and Of reads the code of
// an error chain, joined errors included.
package exitcode

// Code is a process exit code of rightsize's (see the README's table).
type Code int

const (
	// OK: success.
	OK Code = 0
	// Failure: the command failed (cannot connect, SQL or I/O error, a
	// failed check, too many failed events).
	Failure Code = 1
	// Usage: the command line is wrong; nothing was opened or changed.
	Usage Code = 2
	// Interrupted: a signal, or a run that could not complete its window
	// (a partial result was written when the run had started).
	Interrupted Code = 3
)

// Coder is an error that says which exit code it means.
type Coder interface {
	error
	ExitCode() Code
}

type coded struct {
	err  error
	code Code
}

func (c coded) Error() string  { return c.err.Error() }
func (c coded) Unwrap() error  { return c.err }
func (c coded) ExitCode() Code { return c.code }

// With marks err with code, its message unchanged; nil stays nil.
func With(err error, code Code) error {
	if err == nil {
		return nil
	}
	return coded{err, code}
}

// sentinel is New's error: compared by identity, as errors.New's are.
type sentinel struct {
	text string
	code Code
}

func (s *sentinel) Error() string  { return s.text }
func (s *sentinel) ExitCode() Code { return s.code }

// New returns a sentinel error of the given text and code: an error that
// wraps it (fmt.Errorf("%w: ...")) has its code, and errors.Is finds it.
func New(text string, code Code) error { return &sentinel{text, code} }

// Of returns the exit code err means: Interrupted when any error in its
// chain says so, else Usage when one does, else Failure when one does,
// else def (nil is OK).
func Of(err error, def Code) Code {
	if err == nil {
		return OK
	}
	for _, c := range []Code{Interrupted, Usage, Failure} {
		if has(err, c) {
			return c
		}
	}
	return def
}

// Is reports whether an error in err's chain says code.
func Is(err error, code Code) bool { return err != nil && has(err, code) }

func has(err error, code Code) bool {
	for err != nil {
		if c, ok := err.(Coder); ok && c.ExitCode() == code {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if has(e, code) {
					return true
				}
			}
			return false
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		default:
			return false
		}
	}
	return false
}
