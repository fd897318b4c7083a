package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv"
)

// ownershipServer is what the ownership test needs of a server: a fresh
// database, SQL to run there, and a fingerprint of its catalog.
type ownershipServer struct {
	name    string
	url     string
	exec    func(sql string)
	catalog func() string // every table, column and index of the database
	ddl     func() string // DDL commands issued since the start ("" where not observable)
}

func postgresOwnership(t *testing.T) ownershipServer {
	url := testenv.PostgresURL(t)
	exec := execOn(t, url)
	// An event trigger logs every DDL command run in this database, by
	// anyone: the proof that a refused prepare issued none at all.
	exec("CREATE TABLE rs_ddl_log (n SERIAL PRIMARY KEY, tag TEXT NOT NULL)")
	exec(`CREATE FUNCTION rs_log_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $f$
BEGIN INSERT INTO public.rs_ddl_log (tag) VALUES (tg_tag); END $f$`)
	exec("CREATE EVENT TRIGGER rs_log_ddl ON ddl_command_start EXECUTE FUNCTION rs_log_ddl()")
	exec("TRUNCATE rs_ddl_log")
	str := func(q string) string {
		var s string
		queryOn(t, url, q, &s)
		return s
	}
	return ownershipServer{
		name: "postgres", url: url, exec: exec,
		catalog: func() string {
			return str(`SELECT COALESCE(string_agg(c.relname || ' ' || c.relkind::text || ' ' || c.relnatts || ' ' || c.oid::text, ', ' ORDER BY c.relname), '')
				FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`) + " | " +
				str(`SELECT COALESCE(string_agg(tablename, ', ' ORDER BY tablename), '') FROM pg_tables WHERE schemaname = 'public'`) + " | " +
				str(`SELECT COALESCE(string_agg(table_name || '.' || column_name || ' ' || data_type, ', ' ORDER BY table_name, ordinal_position), '')
				FROM information_schema.columns WHERE table_schema = 'public'`)
		},
		ddl: func() string {
			return str("SELECT COALESCE(string_agg(tag, ', ' ORDER BY n), '') FROM rs_ddl_log")
		},
	}
}

func mysqlOwnership(t *testing.T) ownershipServer {
	url := testenv.MySQLURL(t)
	str := func(q string) string {
		var s string
		queryOn(t, url, q, &s)
		return s
	}
	return ownershipServer{
		name: "mysql", url: url, exec: execOn(t, url),
		catalog: func() string {
			return str(`SELECT COALESCE(GROUP_CONCAT(CONCAT_WS(' ', table_name, table_type, engine, create_time) ORDER BY table_name SEPARATOR ', '), '')
				FROM information_schema.tables WHERE table_schema = DATABASE()`) + " | " +
				str(`SELECT COALESCE(GROUP_CONCAT(CONCAT(table_name, '.', column_name, ' ', column_type) ORDER BY table_name, ordinal_position SEPARATOR ', '), '')
				FROM information_schema.columns WHERE table_schema = DATABASE()`) + " | " +
				str(`SELECT COALESCE(GROUP_CONCAT(CONCAT(table_name, '.', index_name, '.', column_name) ORDER BY table_name, index_name, seq_in_index SEPARATOR ', '), '')
				FROM information_schema.statistics WHERE table_schema = DATABASE()`)
		},
		ddl: func() string { return "" }, // the catalog (with create_time) is the proof
	}
}

// TestOwnership: prepare into a database holding a table of the user's with a
// workload table's name (oltp's sbtest1, tpcc's customer) is refused with no
// DDL issued at all (the catalog, the table's definition and rows are
// unchanged, and on PostgreSQL an event trigger saw no DDL command); cleanup
// never drops it, nor any other table of the user's, without --force; with
// --force it drops the workload's tables only, as documented. The
// workload-level tests (oltp TestForeignTables on SQLite, tpcc ldScenario)
// cover the forced prepare and resumption; this one covers the real servers
// through the command line.
func TestOwnership(t *testing.T) {
	for _, srv := range []func(*testing.T) ownershipServer{postgresOwnership, mysqlOwnership} {
		for _, wl := range []struct {
			workload, table string
			opts            []string
		}{
			{"oltp_read_write", "sbtest1", []string{"--tables", "2", "--table-size", "100"}},
			{"tpcc", "customer", []string{"--warehouses", "1"}},
		} {
			t.Run(wl.workload, func(t *testing.T) {
				s := srv(t)
				t.Logf("%s", s.name)
				ctx := context.Background()
				s.exec("CREATE TABLE " + wl.table + " (id INTEGER PRIMARY KEY, precious VARCHAR(20))")
				s.exec("INSERT INTO " + wl.table + " (id, precious) VALUES (1, 'keep me')")
				s.exec("CREATE TABLE users (id INTEGER PRIMARY KEY)")
				before := s.catalog()
				if s.ddl() != "" {
					before += " | ddl: " + s.ddl()
				}
				unchanged := func(step string) {
					t.Helper()
					after := s.catalog()
					if d := s.ddl(); d != "" {
						after += " | ddl: " + d
					}
					if after != before {
						t.Fatalf("%s changed the database:\nbefore: %s\nafter:  %s", step, before, after)
					}
					var rows int64
					var precious string
					queryOn(t, s.url, "SELECT COUNT(*), MAX(precious) FROM "+wl.table, &rows, &precious)
					if rows != 1 || precious != "keep me" {
						t.Fatalf("%s: %s holds %d row(s), %q", step, wl.table, rows, precious)
					}
				}
				args := func(phase string, extra ...string) []string {
					a := append([]string{phase, wl.workload, "--target", s.url}, extra...)
					if phase == "prepare" {
						a = append(a, wl.opts...)
					} else if wl.workload != "tpcc" {
						a = append(a, "--tables", "2")
					}
					return a
				}

				o := run(t, ctx, args("prepare")...)
				if o.code != ExitFailure || !strings.Contains(o.stderr, wl.table) || !strings.Contains(o.stderr, "--force") ||
					!strings.Contains(o.stderr, "nothing was changed") {
					t.Fatalf("prepare over a foreign %s: exit %d\n%s", wl.table, o.code, o.stderr)
				}
				checkOneMessage(t, o)
				unchanged("a refused prepare")

				o = run(t, ctx, args("cleanup")...)
				if o.code != ExitFailure || !strings.Contains(o.stderr, wl.table) || !strings.Contains(o.stderr, "--force") {
					t.Fatalf("cleanup beside a foreign %s: exit %d\n%s", wl.table, o.code, o.stderr)
				}
				checkOneMessage(t, o)
				unchanged("cleanup without --force")

				o = run(t, ctx, args("cleanup", "--force")...)
				if o.code != ExitOK {
					t.Fatalf("cleanup --force: exit %d\n%s", o.code, o.stderr)
				}
				var left int64
				queryOn(t, s.url, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '"+wl.table+"' AND table_schema = "+
					map[string]string{"postgres": "current_schema()", "mysql": "DATABASE()"}[s.name], &left)
				if left != 0 {
					t.Errorf("cleanup --force left %s", wl.table)
				}
				queryOn(t, s.url, "SELECT COUNT(*) FROM users", &left) // fails if users was dropped
			})
		}
	}
}

// TestCleanupKeepsForeignBesideOwned: tables rightsize created and a table of
// the user's with a workload name side by side: cleanup drops exactly the
// former (and its record table), on both servers.
func TestCleanupKeepsForeignBesideOwned(t *testing.T) {
	for _, srv := range []func(*testing.T) ownershipServer{postgresOwnership, mysqlOwnership} {
		t.Run("", func(t *testing.T) {
			s := srv(t)
			t.Logf("%s", s.name)
			ctx := context.Background()
			s.exec("CREATE TABLE sbtest3 (id INTEGER PRIMARY KEY, precious VARCHAR(20))")
			s.exec("INSERT INTO sbtest3 (id, precious) VALUES (1, 'keep me')")
			if o := run(t, ctx, "prepare", "oltp_point_select", "--target", s.url, "--tables", "2", "--table-size", "50"); o.code != ExitOK {
				t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
			}
			o := run(t, ctx, "cleanup", "oltp_point_select", "--target", s.url, "--tables", "3")
			if o.code != ExitFailure || !strings.Contains(o.stderr, "left sbtest3 in place") {
				t.Fatalf("cleanup: exit %d\n%s", o.code, o.stderr)
			}
			checkOneMessage(t, o)
			cat := s.catalog()
			for _, gone := range []string{"sbtest1", "sbtest2", "rightsize_objects"} {
				if strings.Contains(cat, gone) {
					t.Errorf("%s survived cleanup: %s", gone, cat)
				}
			}
			var rows int64
			queryOn(t, s.url, "SELECT COUNT(*) FROM sbtest3 WHERE precious = 'keep me'", &rows)
			if rows != 1 {
				t.Errorf("the user's sbtest3 lost its row")
			}
		})
	}
}

// TestCleanupSaysWhatItRemoved: cleanup names what it dropped, and a second
// cleanup (or one where nothing was prepared) says there was nothing to
// clean up instead of "cleaned up", on both servers, SQLite and a fileio
// file.
func TestCleanupSaysWhatItRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	targets := map[string]func(testing.TB) string{
		"postgres": testenv.PostgresURL,
		"mysql":    testenv.MySQLURL,
		"sqlite":   func(testing.TB) string { return "sqlite:" + filepath.Join(dir, "c.db") },
	}
	for _, name := range []string{"postgres", "mysql", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			url := targets[name](t)
			if o := run(t, ctx, "cleanup", "tpcc", "--target", url); o.code != ExitOK || !strings.Contains(o.stdout, "nothing to clean up") || strings.Contains(o.stdout, "cleaned up") {
				t.Errorf("tpcc cleanup of an empty database: exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
			if o := run(t, ctx, "prepare", "oltp_point_select", "--target", url, "--tables", "2", "--table-size", "50"); o.code != ExitOK {
				t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
			}
			o := run(t, ctx, "cleanup", "oltp_point_select", "--target", url, "--tables", "2")
			if o.code != ExitOK || !strings.Contains(o.stdout, "cleaned up") || !strings.Contains(o.stdout, "removed sbtest1, sbtest2") {
				t.Errorf("first cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
			o = run(t, ctx, "cleanup", "oltp_point_select", "--target", url, "--tables", "2")
			if o.code != ExitOK || !strings.Contains(o.stdout, "nothing to clean up") || strings.Contains(o.stdout, "cleaned up") {
				t.Errorf("second cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
		})
	}
	t.Run("fileio", func(t *testing.T) {
		file := filepath.Join(dir, "f.dat")
		if o := run(t, ctx, "prepare", "fileio", "--file", file, "--size", "1m"); o.code != ExitOK {
			t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
		}
		o := run(t, ctx, "cleanup", "fileio", "--file", file)
		if o.code != ExitOK || !strings.Contains(o.stdout, "cleaned up") || !strings.Contains(o.stdout, "removed "+file) {
			t.Errorf("first cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		}
		o = run(t, ctx, "cleanup", "fileio", "--file", file)
		if o.code != ExitOK || !strings.Contains(o.stdout, "nothing to clean up") || strings.Contains(o.stdout, "cleaned up") {
			t.Errorf("second cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		}
	})
}

// TestPrepareProgressUnits: fileio's prepare counts bytes, shown in binary
// units, and oltp's rows; neither calls bytes "rows", on a terminal (the
// bar) or off one (a line every 10 %).
func TestPrepareProgressUnits(t *testing.T) {
	dir := t.TempDir()
	for i, terminal := range []bool{false, true} {
		n := strconv.Itoa(i)
		for _, c := range []struct {
			args      []string
			want, not string
		}{
			{[]string{"prepare", "fileio", "--file", filepath.Join(dir, "f"+n+".dat"), "--size", "64m"}, "MiB", "rows"},
			{[]string{"prepare", "oltp_point_select", "--target", "sqlite:" + filepath.Join(dir, "p"+n+".db"), "--tables", "1", "--table-size", "1000"}, "rows", "MiB"},
		} {
			var out, errb bytes.Buffer
			code := Main(context.Background(), Env{Args: c.args, Stdout: &out, Stderr: &errb, Terminal: terminal,
				Getenv: func(string) string { return "" }})
			if code != ExitOK {
				t.Fatalf("%v: exit %d\n%s", c.args, code, errb.String())
			}
			if !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), c.not) {
				t.Errorf("%v (terminal %v): progress lacks %q or has %q:\n%s", c.args[1], terminal, c.want, c.not, errb.String())
			}
		}
	}
	var errb bytes.Buffer
	Main(context.Background(), Env{Args: []string{"prepare", "fileio", "--file", filepath.Join(dir, "g.dat"), "--size", "10m"}, Stdout: &bytes.Buffer{}, Stderr: &errb,
		Getenv: func(string) string { return "" }})
	if !strings.Contains(errb.String(), "1 MiB of 10 MiB (10%)") || !strings.Contains(errb.String(), "10 MiB of 10 MiB (100%)") {
		t.Errorf("fileio progress lines:\n%s", errb.String())
	}
}
