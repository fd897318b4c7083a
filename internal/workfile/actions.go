package workfile

import (
	"github.com/rightsize/rightsize/internal/pgbenchscript"
)

// ActionKind is what one step of a transaction does.
type ActionKind uint8

const (
	// Run runs Statements[Action.Stmt].
	Run ActionKind = iota
	// Begin opens a database transaction (BEGIN IMMEDIATE on SQLite when
	// the transaction writes).
	Begin
	// Commit commits the open transaction.
	Commit
	// Rollback rolls it back.
	Rollback
	// Set evaluates Action.Expr into the script variable Action.Var.
	Set
	// Branch goes on with the next action when Action.Expr is true, else
	// goes to Action.Jump (an \elif, an \else or past the \endif).
	Branch
	// Jump goes to Action.Jump.
	Jump
	// Sleep pauses for Action.Micros microseconds, or for script variable
	// Action.Var's value times Action.Micros when Var >= 0. The pause is
	// part of the transaction's time.
	Sleep
)

// Action is one step of a transaction. A file's transaction is BEGIN
// (unless autocommit), its statements in order, COMMIT (fileActions); a
// pgbench script's is its commands (FromScripts). One interpreter runs
// both.
type Action struct {
	Kind ActionKind
	Line int // where it is written (a script's line, for run-time errors)
	// Stmt is the statement a Run runs.
	Stmt int
	// Opens: the statement opens a transaction itself (a BEGIN or START
	// TRANSACTION with options, which a script sends as written).
	Opens bool
	// Var is the variable a Set sets or a Sleep reads (-1: none).
	Var  int
	Expr *pgbenchscript.Expr // Set, Branch
	// Micros is a Sleep's pause, or its unit when it reads Var.
	Micros int64
	// Jump is the index of the action a Branch or Jump goes to.
	Jump int
	// Loads are what a file's Set or Branch reads other than variables:
	// parameters (Slot.Param) and returned values (Slot.Stmt, Col), each
	// copied into the variable Slot.Var before the expression is
	// evaluated.
	Loads []Slot

	name string // a file's Set: the variable's name
	refs []ref  // a file's Set or Branch: the names its expression reads
}

// fileActions are the steps of a file's transaction: BEGIN unless it is
// autocommit, its body (statements, set, sleep, if) with its jumps moved
// past the BEGIN, COMMIT.
func fileActions(tx *Transaction) []Action {
	if tx.Autocommit {
		return tx.Actions
	}
	acts := make([]Action, 0, len(tx.Actions)+2)
	acts = append(acts, Action{Kind: Begin, Line: tx.Line, Var: -1})
	for _, a := range tx.Actions {
		if a.Kind == Branch || a.Kind == Jump {
			a.Jump++
		}
		acts = append(acts, a)
	}
	return append(acts, Action{Kind: Commit, Line: tx.Line, Var: -1})
}

// buildMix sets the cumulative weights Pick draws from.
func (s *Spec) buildMix() {
	s.cum = s.cum[:0]
	var total int64
	for _, tx := range s.Transactions {
		total += tx.Weight
		s.cum = append(s.cum, total)
	}
}
