// Package report renders results for people: the live progress line and the
// end-of-run summary as text. Renderers are pure functions of result types
// writing to an io.Writer; they read no clock, file or database.
package report
