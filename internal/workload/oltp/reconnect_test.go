package oltp

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// TestRunEndsWhenTheDatabaseIsGone drops the database under a run on the
// real PostgreSQL (DROP DATABASE ... WITH (FORCE) ends its sessions): the
// virtual users' reconnects fail with "database does not exist", which no
// retry mends, and the run ends at once, partial, with that reason, instead
// of every virtual user retrying until the end of its minute.
func TestRunEndsWhenTheDatabaseIsGone(t *testing.T) {
	raw := testenv.PostgresURL(t)
	w := NewPointSelect()
	in := open(t, w, raw, "--tables=1", "--table-size=1000")
	ctx := context.Background()
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	d := postgres.Dialect{}
	tg, err := d.ParseTarget(u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var server dialect.Conn
	if server, err = d.Connect(ctx, tg); err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	dropped := make(chan error, 1)
	time.AfterFunc(time.Second, func() {
		_, err := server.Exec(ctx, `DROP DATABASE "`+db+`" WITH (FORCE)`)
		dropped <- err
	})
	start := time.Now()
	res, err := runner.Run(ctx, runner.Settings{Load: runner.Load{Threads: 4, Duration: time.Minute}, Ops: w.Meta().Ops, BackoffMin: 20 * time.Millisecond},
		[]runner.Opened{{NewVU: in.NewVU, Classify: in.Classify}})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-dropped; err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	s := res.Summary
	t.Logf("ended after %v: %s; reconnect failures %v, transactions %d", took.Round(time.Millisecond), res.PartialReason, s.ReconnectFailuresByClass, s.Count)
	if took > 15*time.Second {
		t.Errorf("the run went on %v after its database was dropped", took)
	}
	if !res.Partial || !strings.Contains(res.PartialReason, "does not exist") || !strings.Contains(res.PartialReason, "missing") {
		t.Errorf("partial %v, reason %q; want the missing database", res.Partial, res.PartialReason)
	}
	if s.ReconnectFailuresByClass["missing"] < 1 || s.Count == 0 {
		t.Errorf("reconnect failures %v, transactions %d; want a missing database and the transactions before", s.ReconnectFailuresByClass, s.Count)
	}
}
