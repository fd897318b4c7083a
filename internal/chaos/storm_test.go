package chaos

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/result"
)

// storm runs oltp_read_write with many virtual users on a table of 5 rows,
// retrying only the classes in retry, and asserts:
//
//   - the run completes (exit 0, not partial);
//   - failed attempts that were run again (retries) and events that failed
//     for good (errors) are reported apart, each by class: the retried
//     classes appear only among the retries (an event in flight at the
//     window's end is retried within --grace too), the final failures of the
//     other classes only among the errors;
//   - they add up: every failed attempt failed in exactly one statement, so
//     the statements' errors equal retries plus errors;
//   - a retried class is among the errors only for events that gave up
//     after --max-retries re-runs (summary gave_up);
//   - afterwards no transaction is left open on the server (open reports how
//     many there are; it must reach 0 within 5 s of the command's return, the
//     time a server takes to see closed connections).
//
// hold, when not nil, runs beside the command until it returns (its context
// is then cancelled, and storm waits for it).
func storm(t *testing.T, srv *server, db string, threads int, measured time.Duration, retry string, wantRetried, wantFinal []string,
	open func() int64, hold func(ctx context.Context)) *result.Run {
	t.Helper()
	target := srv.AdminURL(db)
	out := resultFile(t)
	hctx, stopHold := context.WithCancel(context.Background())
	held := make(chan struct{})
	go func() {
		defer close(held)
		if hold != nil {
			hold(hctx)
		}
	}()
	o := rightsize(context.Background(), "run", "oltp_read_write", "--target", target, "--prepare", "never",
		"--table-size", "5", "--threads", strconv.Itoa(threads), "--time", measured.String(),
		"--retry", retry, "--out", out, "--no-history",
		// A storm fails a few per cent of its transactions by design:
		// these tests check how they are counted, so the run is not
		// failed for them (--max-error-pct's default, 1, would).
		"--max-error-pct", "100")
	returned := time.Now()
	stopHold()
	<-held
	if o.code != cli.ExitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var left int64
	for {
		if left = open(); left == 0 || time.Since(returned) > 5*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if left != 0 {
		t.Errorf("%d transactions still open on the server 5 s after the command returned", left)
	} else {
		t.Logf("no transaction open on the server %v after the command returned", time.Since(returned).Round(time.Millisecond))
	}

	r := readResult(t, out)
	s := r.Summary
	t.Logf("summary: %d %s, %.1f/s; retries %d %v; errors %d %v, of which gave up %d; cancelled %d\n%s", s.Count, s.Unit, s.Throughput,
		s.Retries, s.RetriesByClass, s.Errors, s.ErrorsByClass, s.GaveUp, s.Cancelled, intervalsTable(r))
	complete(t, r)
	for _, c := range wantRetried {
		if s.RetriesByClass[c] == 0 {
			t.Errorf("no %s retried: retries %v", c, s.RetriesByClass)
		}
	}
	for c := range s.RetriesByClass {
		if !strings.Contains(","+retry+",", ","+c+",") {
			t.Errorf("%d %s retries, a class --retry %s does not retry", s.RetriesByClass[c], c, retry)
		}
	}
	// A retried class fails for good only when an event's last allowed
	// attempt (the 101st) fails too, which the summary counts as gave_up:
	// at a few per cent of attempts succeeding, a storm sees some.
	var retriedFinal int64
	for _, c := range strings.Split(retry, ",") {
		retriedFinal += s.ErrorsByClass[c]
	}
	if retriedFinal != s.GaveUp {
		t.Errorf("%d final failures of the retried classes %s, but %d events gave up after their last retry", retriedFinal, retry, s.GaveUp)
	}
	var final int64
	for _, c := range wantFinal {
		final += s.ErrorsByClass[c]
	}
	if final == 0 {
		t.Errorf("no final failure of class %v: errors %v", wantFinal, s.ErrorsByClass)
	}
	var ops int64
	for _, op := range r.Ops[1:] {
		ops += op.Errors
	}
	if ops != s.Retries+s.Errors {
		t.Errorf("statements failed %d times, but retries %d + errors %d = %d", ops, s.Retries, s.Errors, s.Retries+s.Errors)
	}
	if r.Ops[0].Errors != s.Errors {
		t.Errorf("the transaction row counts %d errors, the summary %d", r.Ops[0].Errors, s.Errors)
	}
	return r
}

// TestSerializationStormPostgres: 16 virtual users run oltp_read_write on 5
// rows under SERIALIZABLE (the database's default_transaction_isolation),
// retrying serialization failures only: deadlocks and the rest fail for
// good. 10 s (-chaos.full: 30 s).
func TestSerializationStormPostgres(t *testing.T) {
	long(t)
	srv := postgresServer(t)
	db := srv.FreshDB(t)
	mustRun(t, "prepare", "oltp_read_write", "--target", srv.AdminURL(db), "--table-size", "5")
	// Serializable by default; deadlocks found after 100 ms of waiting
	// rather than 1 s, so that the storm keeps moving.
	srv.Exec(t, "", `ALTER DATABASE "`+db+`" SET default_transaction_isolation = 'serializable'`,
		`ALTER DATABASE "`+db+`" SET deadlock_timeout = '100ms'`)
	if got := srv.Count(t, db, "SELECT count(*) FROM pg_settings WHERE name = 'default_transaction_isolation' AND setting = 'serializable'"); got != 1 {
		t.Fatal("default_transaction_isolation is not serializable in the test database")
	}
	open := func() int64 {
		return srv.Count(t, "", "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid() AND (xact_start IS NOT NULL OR state LIKE 'idle in transaction%')", db)
	}
	storm(t, srv, db, 16, scaled(10*time.Second, 30*time.Second), "serialization",
		[]string{"serialization"}, []string{"deadlock", "constraint", "other"}, open, nil)
}

// TestDeadlockStormMariaDB: 16 virtual users run oltp_read_write on 5 rows
// of the private MariaDB with innodb_lock_wait_timeout at 1 s, retrying
// deadlocks only, while another session keeps locking one of the rows for
// 1.5 s every 2 s: the lock waits it causes time out and fail for good.
// 10 s (-chaos.full: 30 s).
func TestDeadlockStormMariaDB(t *testing.T) {
	long(t)
	srv := mariadbServer(t)
	db := srv.FreshDB(t)
	mustRun(t, "prepare", "oltp_read_write", "--target", srv.AdminURL(db), "--table-size", "5")
	srv.Exec(t, "", "SET GLOBAL innodb_lock_wait_timeout = 1")
	t.Cleanup(func() { srv.Exec(t, "", "SET GLOBAL innodb_lock_wait_timeout = DEFAULT") })
	open := func() int64 {
		return srv.Count(t, "", "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id <> CONNECTION_ID()")
	}
	hold := func(ctx context.Context) {
		c := srv.Conn(t, db)
		defer c.Close()
		for ctx.Err() == nil {
			if err := c.Begin(ctx); err != nil {
				t.Errorf("blocker: %v", err)
				return
			}
			var id int64
			if err := c.QueryRow(ctx, "SELECT id FROM sbtest1 WHERE id = 3 FOR UPDATE", nil, &id); err != nil {
				t.Errorf("blocker: %v", err)
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(1500 * time.Millisecond):
			}
			if err := c.Commit(context.Background()); err != nil {
				t.Errorf("blocker: %v", err)
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	storm(t, srv, db, 16, scaled(10*time.Second, 30*time.Second), "deadlock",
		[]string{"deadlock"}, []string{"lock_timeout"}, open, hold)
}
