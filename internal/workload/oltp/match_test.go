package oltp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// said reports whether prepare sent a message containing sub.
func (p *testProgress) said(sub string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.messages {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

// matchScenario: run compares the tables with its options (Match), and
// prepare says why it loads a table again.
func matchScenario(t *testing.T, rawURL string) {
	ctx := context.Background()

	// A first prepare on an empty database says nothing of reloading.
	small := open(t, NewReadWrite(), rawURL, "--tables=2", "--table-size=100")
	p := &testProgress{}
	if err := small.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if p.said("again") || p.said("dropping") {
		t.Errorf("first prepare talks of reloading: %q", p.messages)
	}
	if notes, err := small.Match(ctx); err != nil || len(notes) != 0 {
		t.Fatalf("Match with the prepared options: notes %q, %v", notes, err)
	}

	// Another --table-size: a mismatch naming both values.
	big := open(t, NewReadWrite(), rawURL, "--tables=2", "--table-size=1000")
	_, err := big.Match(ctx)
	const want = "tables sbtest1..sbtest2 hold 100 rows each (prepared), --table-size asks 1,000"
	if !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Match with --table-size 1000 on 100 rows: %v, want a mismatch saying %q", err, want)
	}
	if notes := strings.Join(big.Info().Notes, "\n"); !strings.Contains(notes, want) {
		t.Errorf("the mismatch is not in the instance's notes (for a run forced past it): %s", notes)
	}

	// More tables than prepared: missing, which --force cannot run.
	_, err = open(t, NewReadWrite(), rawURL, "--tables=3", "--table-size=100").Match(ctx)
	if !errors.Is(err, ErrMissingTables) || errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), "sbtest3") {
		t.Errorf("Match with --tables 3 of 2: %v, want missing sbtest3 (not a mismatch)", err)
	}
	// Fewer tables than prepared: sysbench's way, with a note.
	notes, err := open(t, NewReadOnly(), rawURL, "--tables=1", "--table-size=100").Match(ctx)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "sbtest2 exists too: --tables 1 uses sbtest1 only") {
		t.Errorf("Match with --tables 1 of 2: notes %q, %v", notes, err)
	}
	// oltp_insert only adds rows: its --table-size is not compared.
	if notes, err := open(t, NewInsert(), rawURL, "--tables=2", "--table-size=1000").Match(ctx); err != nil || len(notes) != 0 {
		t.Errorf("oltp_insert's Match: notes %q, %v", notes, err)
	}

	// prepare with the new size says why it drops the tables.
	p = &testProgress{}
	if err := big.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("tables sbtest1..sbtest2 hold 100 rows each, --table-size asks 1,000: dropping and loading again") {
		t.Errorf("reload to another --table-size said %q", p.messages)
	}
	if _, err := big.Match(ctx); err != nil {
		t.Errorf("Match after prepare with the same options: %v", err)
	}

	// A table whose load did not finish is a mismatch.
	c := admin(t, big)
	mustExec(t, c, "UPDATE rightsize_objects SET options = ? WHERE object_name = ?",
		`{"table_size":1000,"auto_inc":true,"create_secondary":true,"loaded":false}`, "sbtest2")
	_, err = big.Match(ctx)
	if !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), "table sbtest2 was not fully loaded") {
		t.Errorf("Match on an interrupted load: %v", err)
	}
	p = &testProgress{}
	if err := big.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("table sbtest2 was not fully loaded (an interrupted prepare): dropping and loading again") || p.said("sbtest1 was") {
		t.Errorf("reload of an interrupted table said %q", p.messages)
	}

	// Tables without a record (sysbench's): never refused; their highest id
	// is compared with --table-size, in a note.
	mustExec(t, c, "DELETE FROM rightsize_objects")
	if notes, err := big.Match(ctx); err != nil || len(notes) != 0 {
		t.Errorf("Match on unrecorded tables of the right size: notes %q, %v", notes, err)
	}
	notes, err = open(t, NewReadWrite(), rawURL, "--tables=2", "--table-size=5000").Match(ctx)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "tables sbtest1..sbtest2 have no record in rightsize_objects (made by sysbench, or by hand) and their highest id is 1,000, --table-size asks 5,000: pass the --table-size they were loaded with") {
		t.Errorf("Match on unrecorded tables of another size: notes %q, %v", notes, err)
	}
}

func TestMatchSQLite(t *testing.T) { matchScenario(t, sqliteURL(t)) }

func TestMatchPostgres(t *testing.T) {
	t.Parallel()
	matchScenario(t, testenv.PostgresURL(t))
}

func TestMatchMySQL(t *testing.T) {
	t.Parallel()
	matchScenario(t, testenv.MySQLURL(t))
}
