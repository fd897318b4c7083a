package observers

import "io"

// Out is where the observers write: the console's lines on Stdout, its
// warnings and prepare's progress on Stderr; Terminal when Stderr is a
// terminal (progress bars animate); Brief for one line per step instead of
// the live lines and each step's summary (quickstart).
type Out struct {
	Stdout, Stderr io.Writer
	Terminal       bool
	Brief          bool
}
