package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/testenv"
)

// TestConnectTimeout: --connect-timeout bounds the connections of every
// command that opens them, on both servers' dialects: a server that
// accepts and says nothing, and MySQL's protocol against the real
// PostgreSQL port, fail within it (plus a second) with one message and
// exit code 1. Its default is 10 s and --help says so.
func TestConnectTimeout(t *testing.T) {
	silent := testenv.SilentServer(t)
	pg := mustURL(t, testenv.PostgresURL(t))
	cases := []struct {
		timeout time.Duration
		args    []string
		want    string
	}{
		{time.Second, []string{"run", "oltp_point_select", "--target", "mysql://root@" + silent + "/x", "--time", "1s", "--out", "-", "--no-history"},
			"sent no greeting within the connect timeout (1s)"},
		{time.Second, []string{"run", "oltp_point_select", "--target", "postgres://postgres@" + silent + "/x", "--time", "1s", "--out", "-", "--no-history"},
			"did not complete the connection within the connect timeout (1s)"},
		{time.Second, []string{"prepare", "oltp_point_select", "--target", "mysql://root@" + silent + "/x"}, "within the connect timeout (1s)"},
		{time.Second, []string{"cleanup", "oltp_point_select", "--target", "postgres://postgres@" + silent + "/x?sslmode=disable"}, "within the connect timeout (1s)"},
		{time.Second, []string{"check", "tpcc", "--target", "mysql://root@" + silent + "/x"}, "within the connect timeout (1s)"},
		{time.Second, []string{"sweep", "oltp_point_select", "--threads", "1,2", "--target", "postgres://postgres@" + silent + "/x", "--time", "1s", "--out", "-", "--no-history"},
			"within the connect timeout (1s)"},
		{2 * time.Second, []string{"run", "oltp_point_select", "--target", "mysql://root@" + pg.Host + "/x", "--time", "1s", "--out", "-", "--no-history"},
			"the server at " + pg.Host + " sent no greeting within the connect timeout (2s): it does not speak MySQL's protocol"},
	}
	for _, c := range cases {
		args := append(append([]string(nil), c.args...), "--connect-timeout", c.timeout.String())
		start := time.Now()
		o := run(t, context.Background(), args...)
		took := time.Since(start)
		line := strings.Join(args, " ")
		t.Logf("%s: exit %d after %v: %s", line, o.code, took.Round(time.Millisecond), strings.TrimSpace(o.stderr[max(strings.LastIndex(o.stderr, "rightsize:"), 0):]))
		if o.code != ExitFailure {
			t.Errorf("%s: exit %d, want %d\n%s", line, o.code, ExitFailure, o.stderr)
			continue
		}
		checkOneMessage(t, o)
		if !strings.Contains(o.stderr, c.want) {
			t.Errorf("%s: the message does not say %q:\n%s", line, c.want, o.stderr)
		}
		if took > c.timeout+time.Second {
			t.Errorf("%s: failed after %v, want within %v", line, took, c.timeout)
		}
	}
	o := run(t, context.Background(), "run", "oltp_point_select", "--help")
	if !strings.Contains(o.stdout, "--connect-timeout duration") || !strings.Contains(o.stdout, `(default 10s)`) {
		t.Errorf("run --help does not show --connect-timeout and its default:\n%s", o.stdout)
	}
}
