package cli

import "github.com/rightsize/rightsize/internal/report"

// plural is n and the noun, in the plural unless n is 1 (report.Plural);
// nounFor the noun alone (report.NounFor).
var (
	plural  = report.Plural
	nounFor = report.NounFor
)
