package app

import (
	"github.com/rightsize/rightsize/internal/app/observers"
	"github.com/rightsize/rightsize/internal/app/run"
)

// The run use case (package run): a plan run with the observers its
// options ask for, and what a plan reads from the process.
var (
	// Run runs a plan with the console, and Prometheus, the CPU profile
	// and the history catalog when its options ask (run.Run).
	Run = run.Run
	// PlanEnv is what runplan.Plan reads from the process (run.PlanEnv).
	PlanEnv = run.PlanEnv
	// MissingDatabase reports whether err is the plan's database server
	// saying the database does not exist (run.MissingDatabase).
	MissingDatabase = run.MissingDatabase
	// PrintCommand prints a command line as the user would type it, its
	// passwords removed (run.PrintCommand).
	PrintCommand = run.PrintCommand
	// CommandLine is a command line as the user would type it, its
	// passwords removed (run.CommandLine).
	CommandLine = run.CommandLine
)

// What a run shows (package observers).
var (
	// Version is the build's version (observers.Version).
	Version = observers.Version
	// StartPrometheus serves a run's live metrics (observers.StartPrometheus).
	StartPrometheus = observers.StartPrometheus
	// SweepMarkdown is the report written beside a sweep file
	// (observers.SweepMarkdown).
	SweepMarkdown = observers.SweepMarkdown
)

// Exporter serves a run's live metrics (observers.Exporter).
type Exporter = observers.Exporter
