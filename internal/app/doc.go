// Package app is rightsize's application layer: one use case per
// subpackage, each called by the CLI once it has parsed the flags — run
// (a plan run with its observers, its results recorded in the history
// catalog), phases (prepare, cleanup, check), studyrun (a study's steps,
// resumed from the catalog), capture (a production server's statements
// written as a workload file) and hvimport (a hypervisor's samples aligned
// to a run or sweep) — with the session's observers in observers, and the
// readers of this machine where they belong (host.Topology,
// htmeasure.OnThisMachine, hypervisor.ReadFile).
//
// This package is the CLI's one door to them, so that the CLI imports one
// package for all its use cases (archtest caps the CLI's imports, and
// every package under internal/app, at 12 internal packages): a file per
// use case naming what the CLI calls, each the use case's own function.
package app
