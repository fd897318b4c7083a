// Package report renders results for people: the live progress line, the
// end-of-run summary, step and run tables, a sweep's verdict and answer,
// comparisons and plans as text, Markdown, CSV or one HTML page with its
// charts (chart*.go). It words what analysis found (the knees, the fit and
// the Diagnosis of what held the system) and decides none of it; the
// formatting every renderer shares is in format.go. Renderers are pure
// functions of result and analysis values writing to an io.Writer; they
// read no clock, file or database.
package report
