package tpcc

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
	"github.com/rightsize/rightsize/internal/workload/tables"
)

// inServerOpen opens TPC-C with --in-server (or --in-server=form) on rawURL.
func inServerOpen(t *testing.T, rawURL string, W int, form ...string) *instance {
	t.Helper()
	flag := "--in-server"
	if len(form) > 0 {
		flag += "=" + form[0]
	}
	return testenv.Open(t, New(), rawURL, "--warehouses="+strconv.Itoa(W), flag).(*instance)
}

// bothServers are the servers the routines are tested on, by name.
var bothServers = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"postgres", func(t *testing.T) string { return testenv.PostgresURL(t) }},
	{"mysql", func(t *testing.T) string { return testenv.MySQLURL(t) }},
}

// With --in-server each transaction is one call of a routine that prepare
// installed: a run of 2,000 New-Orders meets the mix's shares (the 1 %
// rollback among them) and leaves a consistent database, on PostgreSQL
// (functions, and procedures) and MariaDB/MySQL (procedures).
func TestInServerRunAndCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and runs TPC-C on the servers")
	}
	for _, db := range []struct {
		name, form string
		url        func(t *testing.T) string
	}{
		{"postgres functions", "on", func(t *testing.T) string { return testenv.PostgresURL(t) }},
		{"postgres procedures", kindProcedures, func(t *testing.T) string { return testenv.PostgresURL(t) }},
		{"mysql", "on", func(t *testing.T) string { return testenv.MySQLURL(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			in := inServerOpen(t, db.url(t), 2, db.form)
			ctx := context.Background()
			if err := in.Prepare(ctx, workload.PrepareOptions{Seed: 7}, nil); err != nil {
				t.Fatal(err)
			}
			c := ldConn(t, in)
			if n, err := countRoutines(ctx, c, in.Target.D); err != nil || n != int64(len(routinesFor(in.Target.D))) {
				t.Fatalf("after prepare: %d routines (%v), want %d", n, err, len(routinesFor(in.Target.D)))
			}
			before := ldInt(t, c, "SELECT SUM(d_next_o_id) FROM district")
			m := driveUntil(t, in, 4, 2000)
			t.Logf("transactions %v (errors %v), counters %v", m.ops, m.errs, m.counters)
			for ty := range numTx {
				if m.ops[ty] == 0 {
					t.Errorf("no %s ran", txDefs[ty].name)
				}
			}
			share := func(what string, k, n int64, p float64) {
				t.Helper()
				got := float64(k) / float64(n)
				if sd := math.Sqrt(p * (1 - p) / float64(n)); math.Abs(got-p) > 4*sd {
					t.Errorf("%s: %.3f%% (%d of %d), want %.1f%% ± %.3f%%", what, 100*got, k, n, 100*p, 400*sd)
				}
			}
			share("rolled-back New-Orders", m.counters[cntRollback], m.ops[newOrder], 0.01)
			share("remote Payments", m.counters[cntRemotePayments], m.ops[payment], 0.15)
			share("Payments by last name", m.counters[cntPaymentByName], m.ops[payment], 0.60)
			// Every New-Order took an order id, the rolled-back ones' undone:
			// the districts' next ids moved by the committed ones only.
			committed := m.ops[newOrder] - m.counters[cntRollback]
			if moved := ldInt(t, c, "SELECT SUM(d_next_o_id) FROM district") - before; moved != committed {
				t.Errorf("d_next_o_id moved by %d, want the %d committed New-Orders", moved, committed)
			}
			if avg := float64(m.counters[cntOrderLines]) / float64(committed); math.Abs(avg-10) > 0.5 {
				t.Errorf("%.2f order lines per New-Order, want 10", avg)
			}
			// Every district starts with 900 undelivered orders, more than
			// the run delivers: a Delivery that skips a district lost a race
			// for its oldest order to another terminal of the warehouse,
			// which it must wait out and take the next (clause 2.7.4.2).
			if n := m.counters[cntDeliverySkipped]; n != 0 {
				t.Errorf("%d districts skipped by Delivery, want 0: none runs out of new orders", n)
			}
			results, err := in.Check(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if !r.Passed {
					t.Errorf("after the run: %s %s failed: %v", r.Name, r.Title, r.Details)
				}
			}
		})
	}
}

// The routines are versioned with prepare: a run refuses a database whose
// routines are missing or of another version (saying to prepare again), a
// prepare replaces them, routines rightsize did not record are refused
// without --force, and cleanup removes them.
func TestInServerRoutinesLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("loads TPC-C on the servers")
	}
	for _, db := range bothServers {
		t.Run(db.name, func(t *testing.T) {
			url := db.url(t)
			ctx := context.Background()
			// Loaded without --in-server: no routines, and a run asks for them.
			plain := ldOpen(t, url, 1)
			if err := plain.Prepare(ctx, workload.PrepareOptions{Seed: 3}, nil); err != nil {
				t.Fatal(err)
			}
			probe := inServerOpen(t, url, 1)
			if _, err := probe.NewVU(ctx, 0, 1); !errors.Is(err, ErrNoRoutines) || !strings.Contains(err.Error(), "prepare tpcc --in-server") {
				t.Fatalf("run without routines: %v, want ErrNoRoutines saying to prepare", err)
			}
			// prepare --in-server keeps the tables and installs them.
			in := inServerOpen(t, url, 1)
			msgs := &ldProgress{}
			if err := in.Prepare(ctx, workload.PrepareOptions{}, msgs); err != nil {
				t.Fatal(err)
			}
			if !msgs.said("already loaded") || !msgs.said("installed the five transactions") {
				t.Errorf("prepare --in-server on loaded tables said %q, want them kept and the routines installed", msgs.messages)
			}
			c := ldConn(t, in)
			v, err := in.NewVU(ctx, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Event(ctx, &termMeter{tallyMeter: &tallyMeter{}}); err != nil {
				t.Errorf("a transaction in the server: %v", err)
			}
			v.Close()
			// Another version recorded: a new run refuses, prepare replaces.
			if err := objects.Write(ctx, c, routinesRecord, Name, routinesMeta{Version: routinesVersion + 1, Kinds: installedKinds(in.Target.D)}); err != nil {
				t.Fatal(err)
			}
			again := inServerOpen(t, url, 1)
			if _, err := again.NewVU(ctx, 0, 1); !errors.Is(err, ErrNoRoutines) || !strings.Contains(err.Error(), "version") {
				t.Fatalf("run on routines of another version: %v", err)
			}
			msgs = &ldProgress{}
			if err := again.Prepare(ctx, workload.PrepareOptions{}, msgs); err != nil {
				t.Fatal(err)
			}
			if !msgs.said("replacing the TPC-C") {
				t.Errorf("prepare over another version said %q, want it to say it replaces them", msgs.messages)
			}
			var m routinesMeta
			if _, err := objects.Read(ctx, c, routinesRecord, &m); err != nil || m.Version != routinesVersion {
				t.Errorf("after prepare: version %d (%v), want %d", m.Version, err, routinesVersion)
			}
			// Unrecorded routines of these names are not ours to replace.
			if err := objects.Delete(ctx, c, routinesRecord); err != nil {
				t.Fatal(err)
			}
			if err := again.Prepare(ctx, workload.PrepareOptions{}, nil); !errors.Is(err, objects.ErrNotOwned) {
				t.Errorf("prepare over unrecorded routines: %v, want ErrNotOwned", err)
			}
			if err := again.Prepare(ctx, workload.PrepareOptions{Force: true}, nil); err != nil {
				t.Fatalf("prepare --force: %v", err)
			}
			// Cleanup drops them with the tables.
			removed, err := again.Cleanup(ctx, workload.PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(removed) == 0 || !strings.Contains(removed[0], "rs_tpcc") {
				t.Errorf("cleanup removed %q, want the routines first", removed)
			}
			if n, err := countRoutines(ctx, c, in.Target.D); err != nil || n != 0 {
				t.Errorf("after cleanup: %d routines (%v)", n, err)
			}
		})
	}
}

// --in-server on SQLite is refused with one clear message.
func TestInServerSQLiteRefused(t *testing.T) {
	w := New()
	fs := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	w.BindFlags(fs)
	if err := fs.Parse([]string{"--in-server"}); err != nil {
		t.Fatal(err)
	}
	tg, err := w.ParseTarget("sqlite:"+t.TempDir()+"/t.db", workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Open(context.Background()); !errors.Is(err, errInServerSQLite) {
		t.Fatalf("--in-server on SQLite: %v", err)
	}
}

// A lock wait that times out inside a routine reaches the terminal as a
// lock timeout, which the runner retries by default, and leaves no
// transaction open behind it (MySQL rolls back only the statement on a lock
// wait timeout: the procedures' EXIT handler rolls back the rest); once the
// lock is gone the terminal runs on.
func TestInServerLockTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("loads TPC-C on the servers")
	}
	for _, db := range []struct {
		name, setTimeout, openTx string
		url                      func(t *testing.T) string
	}{
		{"postgres", "SET lock_timeout = '200ms'",
			"SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
			func(t *testing.T) string { return testenv.PostgresURL(t) }},
		{"mysql", "SET SESSION innodb_lock_wait_timeout = 1",
			"SELECT COUNT(*) FROM information_schema.innodb_trx",
			func(t *testing.T) string { return testenv.MySQLURL(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			in := inServerOpen(t, db.url(t), 1)
			if err := in.Prepare(ctx, workload.PrepareOptions{Seed: 5}, nil); err != nil {
				t.Fatal(err)
			}
			wv, err := in.NewVU(ctx, 0, 11)
			if err != nil {
				t.Fatal(err)
			}
			defer wv.Close()
			v := wv.(*vu)
			if _, err := v.conn.Exec(ctx, db.setTimeout); err != nil {
				t.Fatal(err)
			}
			holder, watcher := ldConn(t, in), ldConn(t, in)
			if err := holder.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := holder.Exec(ctx, "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1"); err != nil {
				t.Fatal(err)
			}
			m := &termMeter{tallyMeter: &tallyMeter{}}
			var failed error
			for range 20 { // Order-Status and Stock-Level take no district lock
				if failed = v.Event(ctx, m); failed != nil {
					break
				}
			}
			if failed == nil {
				t.Fatal("20 transactions ran while every district was locked")
			}
			if c := in.Classify(failed); c != errclass.LockTimeout {
				t.Errorf("a lock wait that timed out in the server: class %v (%v), want lock_timeout", c, failed)
			}
			if n := ldInt(t, watcher, db.openTx); n != 1 {
				t.Errorf("%d transactions open after the failed call, want only the lock holder's", n)
			}
			if err := holder.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			m.retry = true
			for i := range 10 {
				if err := v.Event(ctx, m); err != nil {
					t.Fatalf("transaction %d after the lock was released: %v", i, err)
				}
				m.retry = false
			}
		})
	}
}

// A PostgreSQL New-Order takes its stock in one statement unless a stock row
// appears on two lines; then line by line, the second line taking its
// quantity from what the first left (clause 2.4.2.2), as client-side. Both
// paths, in both forms, update each stock row once per line and write every
// line.
func TestInServerNewOrderStockRowTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("loads TPC-C on the server")
	}
	ctx := context.Background()
	in := inServerOpen(t, testenv.PostgresURL(t), 1)
	if err := in.Prepare(ctx, workload.PrepareOptions{Seed: 9}, nil); err != nil {
		t.Fatal(err)
	}
	c := ldConn(t, in)
	type stock struct{ qty, ytd, cnt int64 }
	read := func(item int) stock {
		q := " FROM stock WHERE s_w_id = 1 AND s_i_id = " + strconv.Itoa(item)
		return stock{ldInt(t, c, "SELECT s_quantity"+q), ldInt(t, c, "SELECT s_ytd"+q), ldInt(t, c, "SELECT s_order_cnt"+q)}
	}
	take := func(q, qty int64) int64 { // clause 2.4.2.2
		if q >= qty+10 {
			return q - qty
		}
		return q - qty + 91
	}
	for _, tc := range []struct {
		name, call string
		items      []int
	}{
		{"function, distinct rows", "SELECT order_id FROM rs_tpcc_new_order", []int{17, 18, 19}},
		{"function, a row twice", "SELECT order_id FROM rs_tpcc_new_order", []int{17, 17, 19}},
		{"procedure, distinct rows", "CALL rs_tpcc_new_order_p", []int{17, 18, 19}},
		{"procedure, a row twice", "CALL rs_tpcc_new_order_p", []int{17, 17, 19}},
	} {
		qtys := []int64{3, 4, 5}
		want := map[int]stock{}
		for _, it := range tc.items {
			want[it] = read(it)
		}
		for k, it := range tc.items {
			s := want[it]
			want[it] = stock{take(s.qty, qtys[k]), s.ytd + qtys[k], s.cnt + 1}
		}
		items := strconv.Itoa(tc.items[0]) + "," + strconv.Itoa(tc.items[1]) + "," + strconv.Itoa(tc.items[2])
		q := tc.call + "(1, 1, 1, localtimestamp, '{1,2,3}', '{" + items + "}', '{1,1,1}', '{3,4,5}', 1" +
			map[bool]string{true: ", NULL, NULL, NULL)", false: ")"}[strings.HasPrefix(tc.call, "CALL")]
		var oid int64
		dest := []any{&oid}
		if strings.HasPrefix(tc.call, "CALL") {
			var total float64
			var rolledBack int64
			dest = append(dest, &total, &rolledBack) // every INOUT parameter
		}
		if err := c.QueryRow(ctx, q, nil, dest...); err != nil {
			t.Fatalf("%s: %s: %v", tc.name, q, err)
		}
		for it, w := range want {
			if got := read(it); got != w {
				t.Errorf("%s: stock of item %d is %+v, want %+v", tc.name, it, got, w)
			}
		}
		lines := ldInt(t, c, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = "+strconv.FormatInt(oid, 10))
		if lines != 3 {
			t.Errorf("%s: order %d has %d lines, want 3", tc.name, oid, lines)
		}
	}
}

// On a schema another tool built (the nine tables, none recorded by
// rightsize: HammerDB's, for instance), prepare --in-server installs only
// the routines and leaves the tables as they are; a run uses them, and
// cleanup removes the routines and keeps the tables.
func TestInServerOnAnotherToolsSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("loads TPC-C on the servers")
	}
	for _, db := range bothServers {
		t.Run(db.name, func(t *testing.T) {
			url, ctx := db.url(t), context.Background()
			plain := ldOpen(t, url, 1)
			if err := plain.Prepare(ctx, workload.PrepareOptions{Seed: 4}, nil); err != nil {
				t.Fatal(err)
			}
			c := ldConn(t, plain)
			if _, err := c.Exec(ctx, "DELETE FROM "+objects.Table); err != nil { // no longer rightsize's
				t.Fatal(err)
			}
			lines := ldInt(t, c, "SELECT COUNT(*) FROM order_line")
			in := inServerOpen(t, url, 3) // not checked against --warehouses
			msgs := &ldProgress{}
			if err := in.Prepare(ctx, workload.PrepareOptions{}, msgs); err != nil {
				t.Fatalf("prepare --in-server on another tool's tables: %v", err)
			}
			if !msgs.said("installing only the routines") {
				t.Errorf("prepare said %q, want it to say it installs only the routines", msgs.messages)
			}
			if n := ldInt(t, c, "SELECT COUNT(*) FROM order_line"); n != lines {
				t.Errorf("order_line holds %d rows after prepare, want the %d it had", n, lines)
			}
			found, err := tables.Survey(ctx, c, tableSet.Names())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range found {
				if !f.Exists || f.Owned {
					t.Errorf("after prepare, table %s: exists %v, recorded as rightsize's %v; want it kept, not recorded", f.Name, f.Exists, f.Owned)
				}
			}
			run := inServerOpen(t, url, 1)
			m := driveUntil(t, run, 2, 200)
			for ty := range numTx {
				if m.ops[ty] == 0 || m.errs[ty] != 0 {
					t.Errorf("%s: %d ran, %d errors", txDefs[ty].name, m.ops[ty], m.errs[ty])
				}
			}
			// Cleanup says it left the tables (not rightsize's, as for any
			// workload) and removed the routines.
			removed, err := run.Cleanup(ctx, workload.PrepareOptions{})
			if !errors.Is(err, objects.ErrNotOwned) {
				t.Errorf("cleanup: %v, want it to say it left the other tool's tables", err)
			}
			if len(removed) != 1 || !strings.Contains(removed[0], "rs_tpcc") {
				t.Errorf("cleanup removed %q, want only the routines", removed)
			}
			if ok, err := c.TableExists(ctx, "order_line"); err != nil || !ok {
				t.Errorf("after cleanup order_line exists %v (%v), want it kept", ok, err)
			}
			if n, err := countRoutines(ctx, c, in.Target.D); err != nil || n != 0 {
				t.Errorf("after cleanup: %d routines (%v)", n, err)
			}
		})
	}
}

// A user's own routine with the name of one of rightsize's (issue 47: on
// PostgreSQL an overload rs_tpcc_new_order(integer), on MySQL/MariaDB a
// stored function, whose names are apart from procedures') is not
// rightsize's: prepare --in-server installs the routines beside it, a run
// finds exactly its own, prepare again replaces them, and cleanup drops
// them; none of them touches the user's routine. Before, both failed with
// the server's "function name "rs_tpcc_new_order" is not unique".
func TestInServerUsersRoutineOfTheSameName(t *testing.T) {
	users := map[string][2]string{ // create, call
		"postgres": {"CREATE FUNCTION rs_tpcc_new_order(x integer) RETURNS integer LANGUAGE sql AS 'SELECT x + 1'", "SELECT rs_tpcc_new_order(41)"},
		"mysql":    {"CREATE FUNCTION rs_tpcc_new_order(x INT) RETURNS INT DETERMINISTIC RETURN x + 1", "SELECT rs_tpcc_new_order(41)"},
	}
	for _, db := range bothServers {
		t.Run(db.name, func(t *testing.T) {
			url, ctx := db.url(t), context.Background()
			in := inServerOpen(t, url, 1)
			c := ldConn(t, in)
			// Another tool's nine tables (empty: only the routines are installed).
			for _, tb := range schema {
				if _, err := c.Exec(ctx, "CREATE TABLE "+tb.name+" (x integer)"); err != nil {
					t.Fatal(err)
				}
			}
			user := users[db.name]
			if _, err := c.Exec(ctx, user[0]); err != nil {
				t.Fatal(err)
			}
			for i := range 2 { // installed, then replaced
				if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
					t.Fatalf("prepare --in-server #%d beside the user's rs_tpcc_new_order: %v", i+1, err)
				}
			}
			if n, err := countRoutines(ctx, c, in.Target.D); err != nil || n != int64(len(routinesFor(in.Target.D))) {
				t.Errorf("after prepare: %d of our routines (%v), want %d", n, err, len(routinesFor(in.Target.D)))
			}
			if err := in.checkRoutines(ctx, c); err != nil {
				t.Errorf("a run's check of the routines: %v", err)
			}
			if _, err := in.Cleanup(ctx, workload.PrepareOptions{}); err != nil && !errors.Is(err, objects.ErrNotOwned) {
				t.Fatalf("cleanup beside the user's rs_tpcc_new_order: %v", err)
			}
			if n, err := countRoutines(ctx, c, in.Target.D); err != nil || n != 0 {
				t.Errorf("after cleanup: %d of our routines (%v), want 0", n, err)
			}
			if got := ldInt(t, c, user[1]); got != 42 {
				t.Errorf("the user's function after cleanup: %d, want 42", got)
			}
			// A user's routine that is one of ours by name and arguments
			// (and kind) is refused, named, and kept.
			same := map[string]string{
				"postgres": "CREATE FUNCTION rs_tpcc_stock_level(a integer, b integer, c integer, OUT low bigint) LANGUAGE sql AS 'SELECT 7::bigint'",
				"mysql":    "CREATE PROCEDURE rs_tpcc_stock_level(a INT, b INT, c INT) SELECT 7",
			}[db.name]
			if _, err := c.Exec(ctx, same); err != nil {
				t.Fatal(err)
			}
			err := in.Prepare(ctx, workload.PrepareOptions{}, nil)
			if !errors.Is(err, objects.ErrNotOwned) || !strings.Contains(err.Error(), "rs_tpcc_stock_level") || strings.Contains(err.Error(), "not unique") {
				t.Errorf("prepare beside the user's rs_tpcc_stock_level of our arguments: %v, want ErrNotOwned naming it", err)
			}
			if n, err := countRoutines(ctx, c, in.Target.D); err != nil || n != 1 {
				t.Errorf("after the refused prepare: %d routines (%v), want the user's one", n, err)
			}
			if got := ldInt(t, c, user[1]); got != 42 {
				t.Errorf("the user's function after the refused prepare: %d, want 42", got)
			}
		})
	}
}
