// Package study reads study files: a published test protocol written down
// as the sweeps and runs that reproduce it (workload, options, the axis and
// its values, the configuration under test) and the report to write at the
// end. The built-in protocols (vm-rate, scaled-instances, tpcc-4x,
// storage-patterns) are such files, embedded in the binary.
//
// It is pure: Parse reads an io.Reader, Validate returns every problem at
// once (with the file's line numbers), and Expand turns a study at a scale
// (small or full) into one argument list per step, the flags that 'rightsize
// sweep' or 'rightsize run' would be given. The CLI (internal/cli, 'rightsize
// study run') parses those lists into runplan.Flags and runs them through the
// same path as run and sweep; this package runs nothing and knows no
// workload. docs/studies.md describes the file format.
package study
