package workfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// ErrWritesExisting is wrapped by CheckWrites' refusal.
var ErrWritesExisting = exitcode.New("the workload writes tables rightsize did not create", exitcode.Usage)

// WritesData reports whether the statement may change data.
func (st *Statement) WritesData() bool { return st.Opaque || len(st.Writes) > 0 }

// Writes reports whether any statement of the transaction may change data.
func (tx *Transaction) Writes() bool {
	return slices.ContainsFunc(tx.Statements, func(st Statement) bool { return st.WritesData() })
}

// Opaque reports whether a statement of the transaction may write tables
// rightsize cannot name.
func (tx *Transaction) Opaque() bool {
	return slices.ContainsFunc(tx.Statements, func(st Statement) bool { return st.Opaque })
}

// WrittenTables lists the declared tables the transaction's statements
// write, lower-cased, sorted (opaque statements aside: see Opaque).
func (tx *Transaction) WrittenTables() []string {
	var out []string
	for _, st := range tx.Statements {
		for _, t := range st.Writes {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Writes reports whether any transaction may change data.
func (s *Spec) Writes() bool {
	return slices.ContainsFunc(s.Transactions, func(tx Transaction) bool { return tx.Writes() })
}

// WrittenTables lists the declared tables any statement writes,
// lower-cased, sorted.
func (s *Spec) WrittenTables() []string {
	var out []string
	for i := range s.Transactions {
		for _, t := range s.Transactions[i].WrittenTables() {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// WritesExisting lists the existing tables the statements write,
// lower-cased, sorted.
func (s *Spec) WritesExisting() []string {
	var out []string
	for _, t := range s.WrittenTables() {
		if tb := s.Table(t); tb != nil && tb.Existing {
			out = append(out, t)
		}
	}
	return out
}

// CheckWrites is the safety rule of workload files: a file that writes
// runs against tables it created, and against existing tables (a copy of
// production) only when allowed: the file's allow_writes or the user's
// consent given once (a flag), which the runner passes as allowed. A
// statement rightsize cannot read (Opaque: a CALL, a DO block) counts as
// writing every table. It returns nil when the file may run, else an error
// wrapping ErrWritesExisting that names the transactions and tables.
func (s *Spec) CheckWrites(allowed bool) error {
	if allowed || s.AllowWrites {
		return nil
	}
	var why []string
	for i := range s.Transactions {
		tx := &s.Transactions[i]
		var existing []string
		for _, t := range tx.WrittenTables() {
			if tb := s.Table(t); tb != nil && tb.Existing {
				existing = append(existing, t)
			}
		}
		switch {
		case tx.Opaque():
			why = append(why, fmt.Sprintf("transaction %s runs a statement rightsize cannot read (CALL, DO, ...), counted as writing every table", tx.Name))
		case len(existing) > 0:
			why = append(why, fmt.Sprintf("transaction %s writes existing table(s) %s", tx.Name, strings.Join(existing, ", ")))
		}
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; allow it once with allow_writes: true in the file or --allow-writes", ErrWritesExisting, strings.Join(why, "; "))
}
