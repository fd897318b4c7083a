package chaos

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload/tpcc"
)

// restart is one server restart during a run.
type restart struct {
	at, down time.Duration // planned: from the run's start, and how long the server stays down
	restartTimes
	// allWorking is when every virtual user had run a statement on a
	// connection made after the restart, as the server saw it (zero: never,
	// within the watch).
	allWorking time.Time
	working    int // how many had, at the end of the watch
}

// restartCase is a run with restarts of its server.
type restartCase struct {
	srv      *server
	workload string
	args     []string // the workload's own flags (prepare and run)
	threads  int
	measured time.Duration
	downs    []time.Duration // one restart each, spread over the run
}

// restartsDuringRun prepares the workload in a fresh database, runs it
// through the command line while the server is restarted len(downs) times,
// and checks what every restart test shares:
//
//   - the run exits 0 with a complete (not partial) result;
//   - the measured time is --time ± 2 s;
//   - connection errors are reported by class, at least one per restart and
//     at most one per virtual user per restart (an event in flight is lost
//     once, never counted twice), and every virtual user reconnects after
//     every restart;
//   - no event succeeds while the server is down (an interval inside the
//     outage has none, the outage's end moved earlier by tickSlack);
//   - after each restart every virtual user is working again within 2 s of
//     the server accepting connections: seen on the server (each VU's new
//     connection runs statements), and in the result, where the first report
//     interval with events from every virtual user (active_vus) starts less
//     than 2 s after the server accepted connections.
func restartsDuringRun(t *testing.T, tc restartCase) (*result.Run, string) {
	t.Helper()
	db := tc.srv.FreshDB(t)
	target := tc.srv.AdminURL(db)
	mustRun(t, append([]string{"prepare", tc.workload, "--target", target, "--seed", "7"}, tc.args...)...)

	const interval = time.Second
	out := resultFile(t)
	run := start(context.Background(), append([]string{"run", tc.workload, "--target", target, "--prepare", "never",
		"--threads", strconv.Itoa(tc.threads), "--time", tc.measured.String(), "--report-interval", interval.String(),
		"--out", out, "--no-history", "--seed", "11"}, tc.args...)...)
	clock := run.clockStarted(t, interval, 60*time.Second)
	logf(t, clock, "run started")

	// Restarts from 15 % of the run, 25 % apart, each at least 3 s after
	// the server came back from the one before (its recovery is judged 2 s
	// after), the last one leaving 3 s to measure after it.
	rs := make([]restart, len(tc.downs))
	for i, down := range tc.downs {
		rc := &rs[i]
		rc.down, rc.at = down, tc.measured*time.Duration(15+25*i)/100
		if i > 0 {
			rc.at = max(rc.at, rs[i-1].ReadyAt.Add(3*time.Second).Sub(clock))
		}
		time.Sleep(time.Until(clock.Add(rc.at)))
		var err error
		rc.restartTimes, err = tc.srv.Restart(rc.down)
		if err != nil {
			t.Fatalf("restart %d: %v", i+1, err)
		}
		logf(t, clock, "restart %d: %s stopped, down %v, accepting connections again", i+1, tc.srv.Kind, rc.down)
		rc.allWorking, rc.working = tc.srv.watchWorking(t, db, tc.threads, 5*time.Second)
		if !rc.allWorking.IsZero() {
			logf(t, clock, "restart %d: all %d virtual users working %.2f s after the server accepted connections",
				i+1, tc.threads, rc.allWorking.Sub(rc.ReadyAt).Seconds())
		}
	}
	if last := rs[len(rs)-1].ReadyAt.Sub(clock); last > tc.measured-3*time.Second {
		t.Fatalf("the last restart ended %v into a %v run: too late to judge the recovery (the test's schedule is too tight)", last, tc.measured)
	}
	o := run.wait()
	logf(t, clock, "run ended: exit %d after %v", o.code, o.took.Round(time.Millisecond))
	if o.code != cli.ExitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := readResult(t, out)
	t.Logf("summary: %d %s, %.1f/s; errors %d %v; retries %d %v; reconnects %d\n%s",
		r.Summary.Count, r.Summary.Unit, r.Summary.Throughput, r.Summary.Errors, r.Summary.ErrorsByClass,
		r.Summary.Retries, r.Summary.RetriesByClass, r.Summary.Reconnects, intervalsTable(r))

	complete(t, r)
	checkMeasuredTime(t, r, tc.measured, 2*time.Second, 5*time.Second+2*time.Second)

	n := int64(len(rs))
	conn := r.Summary.ErrorsByClass["connection"]
	if conn < n || conn > n*int64(tc.threads) {
		t.Errorf("connection errors %d, want one per restart at least and one per virtual user per restart at most (%d to %d); by class %v",
			conn, n, n*int64(tc.threads), r.Summary.ErrorsByClass)
	}
	var byClass int64
	for _, c := range r.Summary.ErrorsByClass {
		byClass += c
	}
	if byClass != r.Summary.Errors {
		t.Errorf("errors %d, but by class they add up to %d: %v", r.Summary.Errors, byClass, r.Summary.ErrorsByClass)
	}
	if want := n * int64(tc.threads); r.Summary.Reconnects < want {
		t.Errorf("reconnects %d, want every virtual user to reconnect after every restart (%d)", r.Summary.Reconnects, want)
	}

	ivs := measured(r)
	for i, rc := range rs {
		down, refusing, up := offset(r, rc.Exited), offset(r, rc.DownUntil), offset(r, rc.ReadyAt)
		t.Logf("restart %d: shutdown from %.2f s of the run, exited at %.2f s, refusing connections until %.2f s, accepting them at %.2f s",
			i+1, offset(r, rc.Stopping), down, refusing, up)
		back := -1.0 // the start of the first interval after the restart with events from every VU
		for _, iv := range ivs {
			from, to := span(iv)
			if from > down && to+tickSlack(r) < refusing && iv.Events > 0 {
				t.Errorf("restart %d: %d events succeeded in %.2f..%.2f s, while the server was down (%.2f..%.2f s)",
					i+1, iv.Events, from, to, down, refusing)
			}
			if back < 0 && to > up && iv.ActiveVUs == int64(tc.threads) {
				back = from
			}
		}
		// At the result's 1 s resolution: the interval in which the last
		// virtual user came back began within 2 s of the server accepting
		// connections.
		if back < 0 || back >= up+2 {
			t.Errorf("restart %d: the first interval with events from all %d virtual users after the server accepted connections at %.2f s starts at %.2f s, want before %.2f s",
				i+1, tc.threads, up, back, up+2)
		}
		switch {
		case rc.allWorking.IsZero():
			t.Errorf("restart %d: only %d of %d virtual users were working again 5 s after the server accepted connections", i+1, rc.working, tc.threads)
		case rc.allWorking.Sub(rc.ReadyAt) > 2*time.Second:
			t.Errorf("restart %d: every virtual user was working again only %.2f s after the server accepted connections, want 2 s at most",
				i+1, rc.allWorking.Sub(rc.ReadyAt).Seconds())
		}
	}
	return r, target
}

// watchWorking watches the server's connections to database db from the
// moment it accepts connections again: a connection is working once the
// statement the server shows for it changes (PostgreSQL: query_start;
// MariaDB: QUERY_ID), which means it ran another statement. It returns when
// want connections are working (zero time if not within limit) and how many
// were.
func (s *server) watchWorking(t testing.TB, db string, want int, limit time.Duration) (time.Time, int) {
	t.Helper()
	c := s.Conn(t, db)
	defer c.Close()
	ctx := context.Background()
	q := "SELECT CONCAT(ID, ':', QUERY_ID) FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()"
	if s.Kind == "postgres" {
		q = "SELECT pid::text || ':' || coalesce(query_start::text, '') FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
	}
	st, err := c.Prepare(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer st.Close()
	firstSeen := map[string]string{} // connection id -> what it showed first
	working := map[string]bool{}
	deadline := time.Now().Add(limit)
	for {
		rows, err := st.Query(ctx, db)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var key string
			if err := rows.Scan(&key); err != nil {
				t.Fatal(err)
			}
			id, _, _ := strings.Cut(key, ":")
			if f, ok := firstSeen[id]; !ok {
				firstSeen[id] = key
			} else if f != key {
				working[id] = true
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		if len(working) >= want {
			return now, len(working)
		}
		if now.After(deadline) {
			return time.Time{}, len(working)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartPostgresDuringOLTP restarts the private PostgreSQL three times
// (fast shutdown, down 1 s, 3.5 s and 0.5 s) during an oltp_read_write run with
// 8 virtual users. Scaled for CI: a 24 s measured window instead of the
// issue's 60 s (-chaos.full runs 60 s).
func TestRestartPostgresDuringOLTP(t *testing.T) {
	long(t)
	restartsDuringRun(t, restartCase{
		srv: postgresServer(t), workload: "oltp_read_write", args: []string{"--table-size", "10000"},
		threads: 8, measured: scaled(24*time.Second, 60*time.Second),
		downs: []time.Duration{time.Second, 3500 * time.Millisecond, 500 * time.Millisecond},
	})
}

// TestRestartMariaDBDuringOLTP is the same on the private MariaDB (SIGTERM,
// then a new mariadbd). Scaled for CI as above.
func TestRestartMariaDBDuringOLTP(t *testing.T) {
	long(t)
	restartsDuringRun(t, restartCase{
		srv: mariadbServer(t), workload: "oltp_read_write", args: []string{"--table-size", "10000"},
		threads: 8, measured: scaled(24*time.Second, 60*time.Second),
		downs: []time.Duration{time.Second, 3500 * time.Millisecond, 500 * time.Millisecond},
	})
}

// TestRestartPostgresDuringTPCC restarts the private PostgreSQL three times
// during a TPC-C run (1 warehouse, 4 terminals, no think time), then `check
// tpcc` must find every consistency condition holding: transactions cut by
// a restart were rolled back whole. Scaled for CI as above.
func TestRestartPostgresDuringTPCC(t *testing.T) {
	long(t)
	r, target := restartsDuringRun(t, restartCase{
		srv: postgresServer(t), workload: "tpcc", args: []string{"--warehouses", "1"},
		threads: 4, measured: scaled(24*time.Second, 60*time.Second),
		downs: []time.Duration{time.Second, 3500 * time.Millisecond, 500 * time.Millisecond},
	})
	if f, err := tpcc.FiguresOf(r.Section); err != nil || f == nil || f.TpmC <= 0 {
		t.Errorf("no TPC-C figures: %+v (%v)", f, err)
	}
	o := rightsize(context.Background(), "check", "tpcc", "--target", target)
	if o.code != cli.ExitOK || !strings.Contains(o.stdout, "all consistency conditions hold") {
		t.Errorf("check tpcc after the restarts: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}
