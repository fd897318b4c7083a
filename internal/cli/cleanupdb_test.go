package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// cleanup with the --instances of prepare drops the numbered databases
// prepare created, once their tables are gone; a numbered database that
// existed before prepare, or one that holds a table of the user's, is kept.
func TestCleanupDropsCreatedDatabasesPostgres(t *testing.T) {
	testCleanupDropsCreatedDatabases(t, testenv.PostgresURL(t),
		"SELECT COUNT(*) FROM pg_database WHERE datname = ?", func(n string) string { return `CREATE DATABASE "` + n + `"` })
}

func TestCleanupDropsCreatedDatabasesMySQL(t *testing.T) {
	testCleanupDropsCreatedDatabases(t, testenv.MySQLURL(t),
		"SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", func(n string) string { return "CREATE DATABASE `" + n + "`" })
}

func testCleanupDropsCreatedDatabases(t *testing.T, base, existsSQL string, create func(string) string) {
	ctx := context.Background()
	urls, err := dbtarget.Number(base, "sbtest", 4)
	if err != nil {
		t.Fatal(err)
	}
	name := func(i int) string { // the database of urls[i]
		u := urls[i]
		if q := strings.IndexByte(u, '?'); q >= 0 {
			u = u[:q]
		}
		return u[strings.LastIndexByte(u, '/')+1:]
	}
	admin := connectTo(t, base)
	exists := func(i int) bool {
		t.Helper()
		var n int64
		if err := admin.QueryRow(ctx, existsSQL, []any{name(i)}, &n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	// NAME_4 is the user's: it exists before prepare.
	if _, err := admin.Exec(ctx, create(name(3))); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--target", base, "--instances", "4", "--tables", "1", "--table-size", "10"}
	if o := run(t, ctx, append([]string{"prepare", "oltp_read_write"}, flags...)...); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	for i := range 4 {
		if !exists(i) {
			t.Fatalf("prepare did not create %s", name(i))
		}
	}
	// NAME_3 gains a table of the user's.
	execOn(t, urls[2])("CREATE TABLE users_own (id INTEGER)")

	o := run(t, ctx, append([]string{"cleanup", "oltp_read_write"}, flags...)...)
	if o.code != ExitOK {
		t.Fatalf("cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	for i, want := range []bool{false, false, true, true} {
		if got := exists(i); got != want {
			t.Errorf("after cleanup, %s exists = %v, want %v\n%s", name(i), got, want, o.stdout)
		}
	}
	for _, w := range []string{
		"dropped the databases prepare created: ",
		"/" + name(2) + "?",
		"which prepare created: each holds 1 table(s) or view(s) that rightsize did not create",
	} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("cleanup's output lacks %q:\n%s", w, o.stdout)
		}
	}
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.Contains(l, "/"+name(3)+"?") && strings.Contains(l, "prepare created") {
			t.Errorf("cleanup names the user's database as prepare's: %s", l)
		}
	}
	// A second cleanup fails on the first database it dropped (exit 1), as
	// on any database that does not exist.
	o = run(t, ctx, append([]string{"cleanup", "oltp_read_write"}, flags[:4]...)...)
	if o.code != ExitFailure || !strings.Contains(o.stderr, name(0)) || strings.Contains(o.stdout, "dropped the database") {
		t.Errorf("second cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// A cleanup with fewer --tables than prepare used keeps the databases,
// saying so once for all of them; one without the --instances of prepare
// fails on the unnumbered database and names --instances.
func TestCleanupKeptDatabasesSaidOnce(t *testing.T) {
	ctx := context.Background()
	base := testenv.PostgresURL(t)
	flags := []string{"--target", base, "--instances", "3"}
	if o := run(t, ctx, append([]string{"prepare", "oltp_read_write", "--tables", "2", "--table-size", "10"}, flags...)...); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	o := run(t, ctx, append([]string{"cleanup", "oltp_read_write"}, flags...)...)
	if o.code != ExitOK || strings.Count(o.stdout, "kept the databases of ") != 1 || !strings.Contains(o.stdout, "give the --tables prepare used") ||
		strings.Contains(o.stdout, "dropped the database") {
		t.Errorf("cleanup --tables 1: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	// A study's base name is never a database itself: cleanup without
	// --instances fails on it.
	u := base[:strings.LastIndexByte(base, '/')] + "/rs_never_made_" + strings.ToLower(t.Name()) + "?sslmode=disable"
	o = run(t, ctx, "cleanup", "oltp_read_write", "--target", u)
	if o.code != ExitFailure || !strings.Contains(o.stderr, "give cleanup the same --instances") {
		t.Errorf("cleanup of a database that does not exist: exit %d\n%s", o.code, o.stderr)
	}
	o = run(t, ctx, append([]string{"cleanup", "oltp_read_write", "--tables", "2"}, flags...)...)
	if o.code != ExitOK || !strings.Contains(o.stdout, "dropped the databases prepare created: ") ||
		!strings.Contains(o.stdout, "_1?") || !strings.Contains(o.stdout, "_3?") || strings.Contains(o.stdout, "kept the database") {
		t.Errorf("cleanup --tables 2: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// TestCleanupKeepsAnotherRolesTable: a database prepare created, in which
// another role made a table the preparing role may not read, is not empty:
// cleanup, run as the preparing role, keeps it (information_schema.tables
// hid that table from it, and the database was dropped with it).
func TestCleanupKeepsAnotherRolesTable(t *testing.T) {
	ctx := context.Background()
	base := testenv.PostgresURL(t)
	admin := connectTo(t, base)
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	owner, other := "rs_owner_"+suffix, "rs_other_"+suffix
	for _, q := range []string{`CREATE ROLE "` + owner + `" LOGIN CREATEDB`, `CREATE ROLE "` + other + `"`} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(owner)
	asOwner := u.String()
	urls, err := dbtarget.Number(asOwner, "sbtest", 2)
	if err != nil {
		t.Fatal(err)
	}
	dbName := func(i int) string {
		p, _ := url.Parse(urls[i])
		return strings.TrimPrefix(p.Path, "/")
	}
	t.Cleanup(func() {
		for i := range urls {
			admin.Exec(ctx, `DROP DATABASE IF EXISTS "`+dbName(i)+`" WITH (FORCE)`)
		}
		admin.Exec(ctx, `DROP ROLE IF EXISTS "`+owner+`"`)
		admin.Exec(ctx, `DROP ROLE IF EXISTS "`+other+`"`)
	})
	flags := []string{"--target", asOwner, "--instances", "2", "--tables", "1", "--table-size", "10"}
	if o := run(t, ctx, append([]string{"prepare", "oltp_read_write"}, flags...)...); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	// The other role's table, in the first database, as the server's admin.
	u.User = url.User("postgres")
	first, _ := url.Parse(urls[0])
	u.Path = first.Path
	sql := execOn(t, u.String())
	sql(`CREATE SCHEMA theirs AUTHORIZATION "` + other + `"`)
	sql(`CREATE TABLE theirs.orders (id INTEGER)`)
	sql(`ALTER TABLE theirs.orders OWNER TO "` + other + `"`)
	o := run(t, ctx, append([]string{"cleanup", "oltp_read_write"}, flags...)...)
	if o.code != ExitOK {
		t.Fatalf("cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	for i, want := range []bool{true, false} {
		var n int64
		if err := admin.QueryRow(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = ?", []any{dbName(i)}, &n); err != nil {
			t.Fatal(err)
		}
		if got := n > 0; got != want {
			t.Errorf("after cleanup, %s exists = %v, want %v\n%s", dbName(i), got, want, o.stdout)
		}
	}
}
