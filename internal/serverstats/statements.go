package serverstats

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/result"
)

// stmtSnapshot is the server's statement counters at a moment (nil: not
// read), each keyed by the server's key of a normalized statement
// (pg_stat_statements' queryid, a digest).
type stmtSnapshot []capture.Stmt

// maxStatementText is how much of a statement's text the figures keep.
const maxStatementText = 200

// secretText matches a statement that may carry a secret in its text (a
// utility statement is kept as written, not normalized): its text is
// withheld.
var secretText = regexp.MustCompile(`(?i)password|identified\s+by|secret`)

// topStatements are the statements that took the most time between
// snapshots first and last (capture.Diff: a statement first lacks counts
// from zero), at most result.TopStatements, each with its share of every
// statement's time there; a text that may carry a secret is withheld.
func topStatements(first, last stmtSnapshot) []result.Statement {
	d := capture.Diff(capture.Snapshot{Stmts: first}, capture.Snapshot{Stmts: last})
	var total float64
	all := make([]result.Statement, 0, len(d.Stmts))
	for _, s := range d.Stmts {
		total += s.TimeMs
		all = append(all, result.Statement{Text: statementText(s.Text), Calls: float64(s.Calls), TimeMs: s.TimeMs, Rows: float64(s.Rows)})
	}
	slices.SortFunc(all, func(x, y result.Statement) int {
		if c := cmp.Compare(y.TimeMs, x.TimeMs); c != 0 {
			return c
		}
		return cmp.Compare(x.Text, y.Text)
	})
	all = all[:min(len(all), result.TopStatements)]
	for i := range all {
		if total > 0 {
			all[i].Share = all[i].TimeMs / total
		}
	}
	return all
}

// statementText is a statement's text as the figures keep it: its runs
// of white space one space, cut to maxStatementText characters, withheld
// when it may carry a secret.
func statementText(s string) string {
	if secretText.MatchString(s) {
		return "(text withheld: it may carry a password)"
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxStatementText {
		s = string(r[:maxStatementText-1]) + "…"
	}
	return s
}

// readStatements runs a statements query whose rows are a statement's
// key, text, calls, time in milliseconds and rows.
func readStatements(ctx context.Context, q dialect.Stmt) (stmtSnapshot, error) {
	rows, err := q.Query(ctx)
	if err != nil {
		return nil, err
	}
	out := stmtSnapshot{}
	for rows.Next() {
		var st capture.Stmt
		if err := rows.Scan(&st.ID, &st.Text, &st.Calls, &st.TimeMs, &st.Rows); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Close()
}
