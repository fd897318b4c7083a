// Package archtest holds the test that enforces rightsize's one-way data flow
// (see ARCHITECTURE in the README): which packages may import which, and that
// only cmd/rightsize touches the process (stdio, args, exit, environment,
// signals). It has no code of its own.
package archtest
