package cli

import "github.com/rightsize/rightsize/internal/session"

// What a command may write over is session's rule (session.CheckOutput);
// its refusals are usage errors (exit 2), made before anything runs.

// output is what a command's flag writes (session.Output).
type output = session.Output

var (
	reportOut  = session.ReportOutput
	resultOut  = session.ResultOutput
	profileOut = session.ProfileOutput
)

// markdownMarker begins a Markdown report report -o writes; htmlMarker is
// in the head of every HTML page rightsize writes.
const (
	markdownMarker = session.MarkdownMarker
	htmlMarker     = session.HTMLMarker
)

// checkOutput refuses (exit 2) to let cmd write its flag's file path over
// one of inputs, or over a file of another kind than out unless force
// (session.CheckOutput).
func checkOutput(cmd, flag, path string, out output, force bool, inputs []string) error {
	return asUsage(session.CheckOutput(cmd, flag, path, out, force, inputs))
}

// writeOutput writes b to path atomically (session.WriteOutput).
func writeOutput(path string, b []byte) error { return session.WriteOutput(path, b) }

// asUsage marks err, when there is one, as a usage error (exit 2).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}
