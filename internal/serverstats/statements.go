package serverstats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/stmtstats"
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

// openStatements opens the reader of the server's statement counters
// (stmtstats): nil when the server does not keep them or the user may not
// read them (a note on the server's settings says so where it matters),
// and a note when they are kept but could not be read.
func openStatements(ctx context.Context, c dialect.Conn) (*stmtstats.Reader, string) {
	r, err := stmtstats.Open(ctx, c, stmtstats.Options{Prepared: true})
	var nr *stmtstats.NotReady
	switch {
	case err == nil:
		return r, ""
	case errors.As(err, &nr) && nr.Kind == stmtstats.NotLoaded:
		return nil, fmt.Sprintf("pg_stat_statements is installed but could not be read (%v), so the statements taking the most time are not named: add it to shared_preload_libraries and restart the server", nr.Err)
	case errors.As(err, &nr):
		return nil, ""
	}
	return nil, fmt.Sprintf("the statements' figures were not read: %v", err)
}
