package serverstats

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	pgdialect "github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/testenv"
)

// A role without pg_monitor sees another role's session in
// pg_stat_activity with its backend type, state and wait events NULL: the
// sampler counts it as hidden, and the note says how to let it be seen,
// rather than leaving it out as if it were not there. A superuser sees the
// same session active and nothing hidden.
func TestPostgresOtherUsersSessionsHidden(t *testing.T) {
	raw := testenv.PostgresURL(t)
	d := pgdialect.Dialect{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	admin, err := d.ParseTarget(raw, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := d.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close()
	role := testenv.DatabaseName(t.Name())
	if _, err := ac.Exec(ctx, `CREATE ROLE "`+role+`" LOGIN`); err != nil {
		t.Fatalf("create role: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := d.Connect(ctx, admin)
		if err != nil {
			t.Errorf("drop role %s: %v", role, err)
			return
		}
		defer c.Close()
		if _, err := c.Exec(ctx, `DROP ROLE IF EXISTS "`+role+`"`); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	unpriv, err := d.ParseTarget(u.String(), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}

	// Another role's session (the superuser's), busy in the run's database
	// for the whole sampling.
	busy, err := d.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	slept := make(chan error, 1)
	go func() {
		_, err := busy.Exec(ctx, "SELECT pg_sleep(3)")
		slept <- err
	}()
	time.Sleep(300 * time.Millisecond)

	for _, c := range []struct {
		name   string
		target Target
		hidden bool
	}{
		{"unprivileged", Target{Loc: unpriv, D: d}, true},
		{"superuser", Target{Loc: admin, D: d}, false},
	} {
		s := New([]Target{c.target}, 20*time.Millisecond, Options{})
		st := s.Start(ctx, 1)
		time.Sleep(500 * time.Millisecond)
		st.Interval("measure")
		out := st.Stop()[0]
		s.Close()
		if out == nil || out.Samples == 0 {
			t.Fatalf("%s: figures %+v, want samples", c.name, out)
		}
		if c.hidden {
			if out.Hidden < out.Samples || out.Active != 0 {
				t.Errorf("%s: %d samples, %d active, %d hidden: want the other role's session hidden in every sample", c.name, out.Samples, out.Active, out.Hidden)
			}
			if !strings.Contains(out.Note, "GRANT pg_monitor TO "+role) {
				t.Errorf("%s: note %q, want how to grant pg_monitor", c.name, out.Note)
			}
		} else {
			if out.Hidden != 0 || out.Active < out.Samples {
				t.Errorf("%s: %d samples, %d active, %d hidden: want the session active in every sample, none hidden", c.name, out.Samples, out.Active, out.Hidden)
			}
			if strings.Contains(out.Note, "pg_monitor") {
				t.Errorf("%s: note %q, want no grant asked for", c.name, out.Note)
			}
		}
	}
	if err := <-slept; err != nil {
		t.Fatalf("pg_sleep: %v", err)
	}
}
