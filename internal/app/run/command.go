package run

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/shellword"
)

// PrintCommand prints a command line on w, as the user would type it: safe
// to paste (shellword.Join), with the passwords of its locations removed
// as results show them (RedactArgs).
func PrintCommand(w io.Writer, args []string) {
	fmt.Fprintf(w, "\n$ rightsize %s\n", shellword.Join(RedactArgs(args)))
}

// CommandLine is a rightsize command line as the user would type it, its
// passwords removed.
func CommandLine(args []string) string {
	return "rightsize " + shellword.Join(RedactArgs(args))
}

// locationFlags are the flags whose value is a database's or a catalog's
// location, which may hold a password.
var locationFlags = []string{"--target", "--history"}

// RedactArgs is args with each location flag's value (--target=URL, or
// --target URL) passed through dialect.Redact: the password of a URL and
// its password parameters removed, a location that does not parse and may
// hold one replaced; an env:VAR or a file's path shown as it is.
func RedactArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		for _, f := range locationFlags {
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				out[i] = f + "=" + dialect.Redact(v)
			} else if a == f && i+1 < len(out) {
				out[i+1] = dialect.Redact(out[i+1])
			}
		}
	}
	return out
}
