package app

import "github.com/rightsize/rightsize/internal/app/phases"

// The phases other than run (package phases).
var (
	// Prepare prepares every target in turn (phases.Prepare).
	Prepare = phases.Prepare
	// Cleanup cleans up every target, then drops the databases prepare
	// created that hold nothing else (phases.Cleanup).
	Cleanup = phases.Cleanup
	// DropCreatedDatabases drops the databases prepare created that hold
	// nothing else (phases.DropCreatedDatabases).
	DropCreatedDatabases = phases.DropCreatedDatabases
	// Check runs the workload's consistency checks (phases.Check).
	Check = phases.Check
)
