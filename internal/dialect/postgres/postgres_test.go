package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/dialecttest"
	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
)

// Hooks are the PostgreSQL-specific parts of the conformance suite.
var Hooks = dialecttest.Hooks{
	SessionID: func(ctx context.Context, c dialect.Conn) (int64, error) {
		var id int64
		err := c.QueryRow(ctx, "SELECT pg_backend_pid()", nil, &id)
		return id, err
	},
	Kill: func(ctx context.Context, admin dialect.Conn, id int64) error {
		var ok bool
		return admin.QueryRow(ctx, "SELECT pg_terminate_backend(?::int)", []any{id}, &ok)
	},
	SleepSQL: "SELECT pg_sleep(10)",
}

func TestConformance(t *testing.T) {
	dialecttest.RunWith(t, postgres.Dialect{}, testenv.PostgresURL(t), Hooks)
}

func connectURL(t *testing.T, raw string, getenv func(string) string) dialect.Conn {
	t.Helper()
	d := postgres.Dialect{}
	target, err := d.ParseTarget(raw, getenv)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTLSInfo checks that Info reports TLS as negotiated: the test server has
// ssl on, so the libpq default (prefer) and require encrypt, disable does not.
func TestTLSInfo(t *testing.T) {
	raw := testenv.PostgresURL(t)
	base, _, _ := strings.Cut(raw, "?")
	for _, tc := range []struct {
		mode string
		want bool
	}{{"", true}, {"?sslmode=require", true}, {"?sslmode=disable", false}} {
		info := connectURL(t, base+tc.mode, nil).Info()
		if info.Encrypted != tc.want {
			t.Errorf("%q: Encrypted = %v, want %v", tc.mode, info.Encrypted, tc.want)
		}
		if info.Encrypted && !strings.HasPrefix(info.TLSVersion, "TLS 1.") {
			t.Errorf("%q: TLSVersion = %q", tc.mode, info.TLSVersion)
		}
		if !strings.HasPrefix(info.ServerVersion, "1") {
			t.Errorf("%q: ServerVersion = %q", tc.mode, info.ServerVersion)
		}
		t.Logf("%q: %+v", tc.mode, info)
	}
}

// TestEnvDatabase checks that PGDATABASE given through getenv chooses the database.
func TestEnvDatabase(t *testing.T) {
	raw := testenv.PostgresURL(t)
	d := postgres.Dialect{}
	want, err := d.ParseTarget(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PGDATABASE": want.Database, "PGHOST": "127.0.0.1", "PGUSER": "postgres", "PGSSLMODE": "disable"}
	c := connectURL(t, "postgres://", func(k string) string { return env[k] })
	var got string
	if err := c.QueryRow(context.Background(), "SELECT current_database()", nil, &got); err != nil {
		t.Fatal(err)
	}
	if got != want.Database {
		t.Errorf("current_database() = %q, want %q", got, want.Database)
	}
	if c.Info().Encrypted {
		t.Errorf("PGSSLMODE=disable ignored")
	}
}

// TestConnectErrorHasNoPassword connects with a wrong password (the server
// trusts local connections, so use a user that does not exist) and a refused port.
func TestConnectErrorHasNoPassword(t *testing.T) {
	testenv.PostgresURL(t) // skips when there is no server
	d := postgres.Dialect{}
	const pw = "Sup3rSecretPW"
	for _, raw := range []string{
		"postgres://nobody_rs:" + pw + "@127.0.0.1:5432/nodb_rs?sslmode=disable",
		"postgres://nobody_rs:" + pw + "@127.0.0.1:1/nodb_rs?sslmode=disable",
	} {
		target, err := d.ParseTarget(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := d.Connect(ctx, target)
		cancel()
		if err == nil {
			c.Close()
			t.Fatalf("%s: connected", target)
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error contains the password: %v", err)
		}
		if got := d.Classify(err); got != errclass.Connection {
			t.Errorf("Classify(%v) = %v, want connection", err, got)
		}
	}
}
