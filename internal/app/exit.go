package app

import "github.com/rightsize/rightsize/internal/exitcode"

// ExitCode is the exit code an error carries where it was made (package
// exitcode), as the command edge reads it.
type ExitCode = exitcode.Code

// The exit codes (the README's table).
const (
	ExitOK          = exitcode.OK
	ExitFailure     = exitcode.Failure
	ExitUsage       = exitcode.Usage
	ExitInterrupted = exitcode.Interrupted
)

// CodeOf is the exit code err carries (exitcode.Of), def when it carries
// none.
func CodeOf(err error, def ExitCode) ExitCode { return exitcode.Of(err, def) }

// Carries reports whether an error in err's chain carries code.
func Carries(err error, code ExitCode) bool { return exitcode.Is(err, code) }
