package cli

import (
	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/foreignflag"
)

// flagErrors is the commands' FlagErrorFunc for the command line args (the
// process's, without the program's name): see flagError.
func flagErrors(args []string) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error { return flagError(c, err, args) }
}

// flagError is a usage error (exit 2) that says, for each flag of args c
// does not know, what rightsize calls it when it is another tool's, or how
// rightsize spells it (foreignflag.Explain).
func flagError(c *cobra.Command, err error, args []string) error {
	return usageError{foreignflag.Explain(c, err, args)}
}
