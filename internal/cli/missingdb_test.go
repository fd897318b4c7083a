package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv"
)

// TestMissingDatabaseAdvice: run and sweep on a database that does not exist
// say, on the message's one line, how to create it there (prepare, or
// --prepare always); with --prepare always they create it and run.
func TestMissingDatabaseAdvice(t *testing.T) {
	ctx := context.Background()
	pgURL := testenv.PostgresURL(t)
	myURL := testenv.MySQLURL(t)
	missing := func(raw string) string {
		u := mustURL(t, raw)
		u.Path += "_" + uniqueName("missing")
		return u.String()
	}
	for _, c := range []struct{ name, target string }{
		{"postgres", missing(pgURL)},
		{"mysql", missing(myURL)},
	} {
		for _, cmd := range [][]string{
			{"run", "oltp_point_select", "--time", "1s"},
			{"sweep", "oltp_point_select", "--threads", "1,2", "--time", "1s"},
		} {
			t.Run(c.name+" "+cmd[0], func(t *testing.T) {
				args := append(cmd, "--target", c.target, "--out", "-", "--no-history")
				o := run(t, ctx, args...)
				if o.code != ExitFailure {
					t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", o.code, ExitFailure, o.stdout, o.stderr)
				}
				checkOneMessage(t, o)
				for _, want := range []string{"does not exist yet", "rightsize prepare oltp_point_select --target URL", "--prepare always"} {
					if !strings.Contains(o.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
					}
				}
				if strings.Contains(o.stderr, "study run") {
					t.Errorf("run's advice names study run's flag:\n%s", o.stderr)
				}
			})
		}
	}
	t.Run("postgres run --prepare always creates it", func(t *testing.T) {
		target := missing(pgURL)
		t.Cleanup(func() { run(t, ctx, "cleanup", "oltp_point_select", "--target", target, "--tables", "1") })
		o := run(t, ctx, "run", "oltp_point_select", "--target", target, "--prepare", "always", "--tables", "1", "--table-size", "100", "--time", "1s", "--out", "-", "--no-history")
		if o.code != 0 {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
		}
	})
}
