package capturedb

import (
	"context"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/testenv"
)

// TestWindowOutlivesAStep: a window longer than the bound on each step
// before it (2 minutes; 1 s here) still ends with its last snapshot. The
// first steps' context expired during the window, and the PostgreSQL
// connection's hot path, which watched it, set its socket's deadline then:
// every window over 2 minutes ended "write failed: i/o timeout" and lost
// (issue 49).
func TestWindowOutlivesAStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts private servers")
	}
	defer func(d time.Duration) { stepTimeout = d }(stepTimeout)
	stepTimeout = time.Second
	for _, srv := range []*testenv.Server{
		testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements"),
		testenv.PrivateMariaDB(t, "--performance-schema=ON"),
	} {
		db := srv.NamedDB(t, "app")
		if srv.Kind == "postgres" {
			srv.Exec(t, db, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
		}
		url := srv.AdminURL(db)
		r, err := Capture(context.Background(), Options{Target: url, For: 3 * time.Second, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Errorf("%s: a 3 s window after steps bounded at 1 s: %v", srv.Kind, err)
			continue
		}
		if r.Early {
			t.Errorf("%s: the window ended early", srv.Kind)
		}
	}
}

// TestWindowOverTwoMinutes: a capture of 2 minutes 10 seconds, past the
// 2-minute bound on each step, delivers on PostgreSQL and on MariaDB with
// the real bound (the suite's one window over 2 minutes; both servers at
// once, beside the other packages' tests).
func TestWindowOverTwoMinutes(t *testing.T) {
	if testing.Short() {
		t.Skip("captures for 2m10s")
	}
	for _, kind := range []string{"postgres", "mariadb"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var srv *testenv.Server
			if kind == "postgres" {
				srv = testenv.PrivatePostgres(t, "shared_preload_libraries=pg_stat_statements")
			} else {
				srv = testenv.PrivateMariaDB(t, "--performance-schema=ON")
			}
			db := srv.NamedDB(t, "app")
			if kind == "postgres" {
				srv.Exec(t, db, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
			}
			srv.Exec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 0)")
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			c := srv.Conn(t, db)
			go func() { // the application: one update a second
				for ctx.Err() == nil {
					_, _ = c.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = 1")
					time.Sleep(time.Second)
				}
			}()
			const window = 2*time.Minute + 10*time.Second
			r, err := Capture(context.Background(), Options{Target: srv.AdminURL(db), For: window, Getenv: func(string) string { return "" }})
			stop()
			if err != nil {
				t.Fatalf("a %v window: %v", window, err)
			}
			if r.Early || len(r.Model.Txs) == 0 {
				t.Errorf("a %v window: early %v, %d transactions captured (want the UPDATE)", window, r.Early, len(r.Model.Txs))
			}
		})
	}
}
