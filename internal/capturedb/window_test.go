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
