package cli

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/testenv"
)

// canary is the password of the role and user the secrets tests create: it
// must never appear in anything rightsize writes.
const canary = "Canary-7f3a9c"

// leakCheck gathers everything rightsize wrote and reports where the canary
// shows.
type leakCheck struct {
	t     *testing.T
	dir   string // result files, reports and the SQLite catalog
	texts map[string]string
}

func newLeakCheck(t *testing.T) *leakCheck {
	return &leakCheck{t: t, dir: t.TempDir(), texts: map[string]string{}}
}

// run runs rightsize with vars and keeps its output.
func (lc *leakCheck) run(name string, vars map[string]string, want int, args ...string) outcome {
	lc.t.Helper()
	o := runWithEnv(lc.t, context.Background(), vars, args...)
	if o.code != want {
		lc.t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", name, o.code, want, o.stdout, o.stderr)
	}
	lc.texts[name+" stdout"] = o.stdout
	lc.texts[name+" stderr"] = o.stderr
	return o
}

// verify looks for the canary in every output kept, in every file under dir
// (raw bytes: results, reports, the SQLite catalog and its journal), and in
// the runs of the catalog at dsn, decoded (its result column is compressed).
func (lc *leakCheck) verify(dsns ...string) {
	t := lc.t
	t.Helper()
	forms := []string{canary, url.QueryEscape(canary), strings.ToLower(canary)}
	look := func(where, s string) {
		for _, f := range forms {
			if strings.Contains(s, f) {
				t.Errorf("the password shows in %s:\n%s", where, s)
				return
			}
		}
	}
	for where, s := range lc.texts {
		look(where, s)
	}
	files := 0
	err := filepath.WalkDir(lc.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		look(p, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 4 {
		t.Errorf("only %d files written under %s", files, lc.dir)
	}
	for _, dsn := range dsns {
		ctx := context.Background()
		cat, err := history.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatalf("catalog: %v", err)
		}
		entries, err := cat.List(ctx, history.Filter{})
		if err != nil || len(entries) == 0 {
			t.Fatalf("catalog %s: %d runs, %v", cat, len(entries), err)
		}
		for _, e := range entries {
			r, _, err := cat.Get(ctx, e.Key)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(struct {
				E any
				R any
			}{e, r})
			look("catalog entry "+e.Key, string(b))
		}
		cat.Close()
	}
}

// TestPasswordNeverShownPostgres: a canary password on PostgreSQL given in
// the URL, in PGPASSWORD, in a pass file (PGPASSFILE) and in --target env:VAR
// never appears in stdout, stderr, the result, the HTML and Markdown
// reports, the history catalogs (SQLite file bytes, and a PostgreSQL catalog
// whose own DSN carries the canary), or the errors of failed connections. The
// server trusts loopback here, so the password is never checked, but it is
// parsed, held and would be sent on request just the same.
func TestPasswordNeverShownPostgres(t *testing.T) {
	base := testenv.PostgresURL(t)
	u := mustURL(t, base)
	db := strings.TrimPrefix(u.Path, "/")
	admin := execOn(t, base)
	role := uniqueName("rs_canary_")
	admin("CREATE ROLE " + role + " LOGIN PASSWORD '" + canary + "'")
	admin("ALTER DATABASE " + db + " OWNER TO " + role)
	t.Cleanup(func() {
		admin("REASSIGN OWNED BY " + role + " TO postgres")
		admin("DROP OWNED BY " + role)
		admin("DROP ROLE " + role)
	})
	withPW := func(db string) string {
		return "postgres://" + role + ":" + canary + "@127.0.0.1:5432/" + db + "?sslmode=disable"
	}
	noPW := "postgres://" + role + "@127.0.0.1:5432/" + db + "?sslmode=disable"

	lc := newLeakCheck(t)
	passfile := filepath.Join(t.TempDir(), "pgpass") // outside lc.dir: it holds the canary
	if err := os.WriteFile(passfile, []byte("127.0.0.1:5432:*:"+role+":"+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lite := "sqlite:" + filepath.Join(lc.dir, "history.db")
	pgCatalog := withPW(db) // the team catalog, in the same database
	for _, c := range []struct {
		name   string
		vars   map[string]string
		target string
	}{
		{"url", nil, withPW(db)},
		{"PGPASSWORD", map[string]string{"PGPASSWORD": canary}, noPW},
		{"PGPASSFILE", map[string]string{"PGPASSFILE": passfile}, noPW},
		{"env", map[string]string{"RS_TARGET": withPW(db)}, "env:RS_TARGET"},
	} {
		out := filepath.Join(lc.dir, c.name+".json")
		common := []string{"--target", c.target}
		lc.run(c.name+" prepare", c.vars, ExitOK, append([]string{"prepare", "oltp_point_select", "--table-size", "200"}, common...)...)
		lc.run(c.name+" run", c.vars, ExitOK, append([]string{"run", "oltp_point_select", "--table-size", "200", "--time", "1s",
			"--out", out, "--history", lite, "--label", c.name}, common...)...)
		lc.run(c.name+" report html", nil, ExitOK, "report", out, "--format", "html", "--out", filepath.Join(lc.dir, c.name+".html"))
		lc.run(c.name+" report md", nil, ExitOK, "report", out, "--format", "md", "--out", filepath.Join(lc.dir, c.name+".md"))
		lc.run(c.name+" report text", nil, ExitOK, "report", out, "--format", "text")
		r := mustReadResult(t, out)
		if got := r.Instances[0].Target; !strings.HasPrefix(got, "postgres://"+role+"@127.0.0.1:5432/") {
			t.Errorf("%s: result target %q", c.name, got)
		}
		// Failed connections: a port nobody listens on, a missing database.
		vars := map[string]string{}
		for k, v := range c.vars {
			vars[k] = v
		}
		bad := map[string]string{
			"wrong port":     strings.Replace(c.target, "127.0.0.1:5432", "127.0.0.1:1", 1),
			"wrong database": strings.Replace(c.target, "/"+db+"?", "/"+db+"_missing?", 1),
		}
		if c.name == "env" {
			bad["wrong port"], bad["wrong database"] = "env:RS_BAD_PORT", "env:RS_BAD_DB"
			vars["RS_BAD_PORT"] = strings.Replace(withPW(db), "127.0.0.1:5432", "127.0.0.1:1", 1)
			vars["RS_BAD_DB"] = withPW(db + "_missing")
		}
		for what, target := range bad {
			o := lc.run(c.name+" "+what, vars, ExitFailure, "run", "oltp_point_select", "--target", target, "--time", "1s", "--out", "-", "--no-history")
			if !strings.Contains(o.stderr, role+"@127.0.0.1") {
				t.Errorf("%s, %s: the error does not name the target:\n%s", c.name, what, o.stderr)
			}
			lc.run(c.name+" cleanup, "+what, vars, ExitFailure, "cleanup", "oltp_point_select", "--target", target)
		}
		lc.run(c.name+" cleanup", c.vars, ExitOK, append([]string{"cleanup", "oltp_point_select"}, common...)...)
	}
	// A PostgreSQL history catalog whose DSN (from RIGHTSIZE_HISTORY) holds the canary.
	lc.run("pg catalog run", map[string]string{"RIGHTSIZE_HISTORY": pgCatalog}, ExitOK, "run", "oltp_point_select",
		"--target", "sqlite:"+filepath.Join(lc.dir, "lite.db"), "--prepare", "always", "--table-size", "100", "--time", "1s",
		"--out", filepath.Join(lc.dir, "lite.json"))
	lc.run("pg catalog list", map[string]string{"RIGHTSIZE_HISTORY": pgCatalog}, ExitOK, "history", "list")
	lc.run("sqlite catalog list", nil, ExitOK, "history", "list", "--history", lite)
	lc.run("pg catalog unreachable", map[string]string{"RIGHTSIZE_HISTORY": strings.Replace(pgCatalog, "127.0.0.1:5432", "127.0.0.1:1", 1)},
		ExitFailure, "history", "list")
	studyLeaks(lc, map[string]string{"RS_TARGET": withPW(db), "RS_HISTORY": pgCatalog}, withPW(db), pgCatalog, lite)
	lc.verify(lite, pgCatalog)
}

// canaryStudy is a study of one short run and a two-step sweep on the
// canary's database.
const canaryStudy = `study: canary
options: {table-size: 200, time: 1s, report-interval: 500ms}
steps:
  - {name: point, run: oltp_point_select}
  - {name: sweep, sweep: oltp_point_select, axis: threads, values: [1, 2]}
report: {format: md, path: canary.md}
`

// studyLeaks runs a study with the canary in its --target and --history
// (as URLs and as env:VAR): printed with --dry-run, run for real (its
// printed commands, results, sweep file, record and report), resumed, and
// failing on a wrong port.
func studyLeaks(lc *leakCheck, vars map[string]string, target, catalog, lite string) {
	t := lc.t
	t.Helper()
	file := filepath.Join(t.TempDir(), "canary.yaml")
	if err := os.WriteFile(file, []byte(canaryStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, target, history string }{
		{"url", target, catalog},
		{"env", "env:RS_TARGET", lite},
	} {
		dir := filepath.Join(lc.dir, "study-"+c.name)
		args := []string{"study", "run", file, "--target", c.target, "--history", c.history, "--dir", dir, "--study-id", "canary-" + c.name, "--prepare", "always"}
		o := lc.run("study dry-run "+c.name, vars, ExitOK, append(args, "--dry-run")...)
		if strings.Count(o.stdout, "$ rightsize ") != 2 {
			t.Errorf("study dry-run %s: want two commands printed:\n%s", c.name, o.stdout)
		}
		lc.run("study "+c.name, vars, ExitOK, args...)
		o = lc.run("study resumed "+c.name, vars, ExitOK, args...)
		if !strings.Contains(o.stdout, "skipped 2 of 2 steps") {
			t.Errorf("study %s resumed:\n%s", c.name, o.stdout)
		}
	}
	bad := strings.Replace(target, "127.0.0.1:5432", "127.0.0.1:1", 1)
	lc.run("study wrong port", vars, ExitFailure, "study", "run", file, "--target", bad, "--history", catalog, "--dir", filepath.Join(lc.dir, "study-bad"))
}

// TestPasswordNeverShownMySQL: the same for MariaDB, where a password comes
// only in the URL (MYSQL_PWD is deliberately ignored), on the command line or
// through --target env:VAR; and a wrong password's error names the user, not
// the password.
func TestPasswordNeverShownMySQL(t *testing.T) {
	base := testenv.MySQLURL(t)
	db := strings.TrimPrefix(mustURL(t, base).Path, "/")
	admin := execOn(t, base)
	user := uniqueName("rs_canary_")
	admin("CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED BY '" + canary + "'")
	admin("GRANT ALL ON `" + db + "`.* TO '" + user + "'@'127.0.0.1'")
	admin("GRANT ALL ON `" + db + "\\_missing`.* TO '" + user + "'@'127.0.0.1'")
	t.Cleanup(func() { admin("DROP USER IF EXISTS '" + user + "'@'127.0.0.1'") })
	at := func(pw, hostport, db string) string {
		return "mysql://" + user + ":" + pw + "@" + hostport + "/" + db
	}

	lc := newLeakCheck(t)
	lite := "sqlite:" + filepath.Join(lc.dir, "history.db")
	vars := map[string]string{
		"RS_TARGET":   at(canary, "127.0.0.1:3306", db),
		"RS_BAD_PORT": at(canary, "127.0.0.1:1", db),
		"RS_BAD_DB":   at(canary, "127.0.0.1:3306", db+"_missing"),
		"MYSQL_PWD":   canary, // ignored, but must not show either
	}
	for _, c := range []struct{ name, target, badPort, badDB string }{
		{"url", at(canary, "127.0.0.1:3306", db), at(canary, "127.0.0.1:1", db), at(canary, "127.0.0.1:3306", db+"_missing")},
		{"env", "env:RS_TARGET", "env:RS_BAD_PORT", "env:RS_BAD_DB"},
	} {
		out := filepath.Join(lc.dir, c.name+".json")
		lc.run(c.name+" prepare", vars, ExitOK, "prepare", "oltp_point_select", "--table-size", "200", "--target", c.target)
		lc.run(c.name+" run", vars, ExitOK, "run", "oltp_point_select", "--table-size", "200", "--time", "1s",
			"--out", out, "--history", lite, "--label", c.name, "--target", c.target)
		lc.run(c.name+" report html", nil, ExitOK, "report", out, "--format", "html", "--out", filepath.Join(lc.dir, c.name+".html"))
		lc.run(c.name+" report md", nil, ExitOK, "report", out, "--format", "md", "--out", filepath.Join(lc.dir, c.name+".md"))
		lc.run(c.name+" wrong port", vars, ExitFailure, "run", "oltp_point_select", "--target", c.badPort, "--time", "1s", "--out", "-", "--no-history")
		lc.run(c.name+" wrong database", vars, ExitFailure, "run", "oltp_point_select", "--target", c.badDB, "--time", "1s", "--out", "-", "--no-history")
		lc.run(c.name+" cleanup", vars, ExitOK, "cleanup", "oltp_point_select", "--target", c.target)
	}
	o := lc.run("wrong password", vars, ExitFailure, "prepare", "oltp_point_select", "--target", at(canary+"x", "127.0.0.1:3306", db))
	if !strings.Contains(o.stderr, "Access denied for user '"+user+"'") {
		t.Errorf("wrong password: %s", o.stderr)
	}
	lc.verify(lite)
}

// TestTargetFromEnv: --target env:VAR takes the URL from VAR, refuses an
// unset or empty variable, a malformed name and a second reference, and never
// quotes the value.
func TestTargetFromEnv(t *testing.T) {
	vars := map[string]string{"GOOD": " sqlite:/tmp/x.db ", "LOOP": "env:GOOD", "EMPTY": ""}
	get := func(k string) string { return vars[k] }
	if v, err := runplan.TargetFromEnv("env:GOOD", get); err != nil || v != "sqlite:/tmp/x.db" {
		t.Errorf("env:GOOD = %q, %v", v, err)
	}
	if v, err := runplan.TargetFromEnv("postgres://u@h/db", get); err != nil || v != "postgres://u@h/db" {
		t.Errorf("a URL = %q, %v", v, err)
	}
	for _, raw := range []string{"env:", "env:EMPTY", "env:UNSET", "env:LOOP", "env:1X", "env:A-B", "env:A B"} {
		if v, err := runplan.TargetFromEnv(raw, get); err == nil || v != "" || strings.Contains(err.Error(), "sqlite:") {
			t.Errorf("%s = %q, %v: want an error without the value", raw, v, err)
		}
	}
	// Through the command line, with --instances numbering from it.
	dir := t.TempDir()
	o := runWithEnv(t, context.Background(), map[string]string{"RS_T": "sqlite:" + dir + "/"}, "run", "oltp_point_select",
		"--target", "env:RS_T", "--instances", "2", "--table-size", "100", "--time", "1s", "--out", filepath.Join(dir, "r.json"), "--no-history")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if r := mustReadResult(t, filepath.Join(dir, "r.json")); len(r.Instances) != 2 || !strings.HasPrefix(r.Instances[1].Target, "sqlite:"+dir) {
		t.Errorf("instances %+v", r.Instances)
	}
}

// TestCommandLineShowsOnlyWhatIsOnIt runs the real binary and reads its
// command line as ps does (/proc/PID/cmdline): a password in a --target URL
// is there for any user of the host to see (rightsize cannot hide it, as no
// program can: docs/passwords.md), while --target env:VAR keeps it off.
func TestCommandLineShowsOnlyWhatIsOnIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	base := testenv.PostgresURL(t)
	withPW := strings.Replace(base, "postgres://postgres@", "postgres://postgres:"+canary+"@", 1)
	if withPW == base {
		t.Fatalf("unexpected test URL shape %s", base)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rightsize")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/rightsize/rightsize/cmd/rightsize").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmdline := func(target string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, "run", "oltp_point_select", "--target", target, "--prepare", "always", "--table-size", "100",
			"--time", "2s", "--out", "-", "--no-history")
		cmd.Env = append(os.Environ(), "RS_TARGET="+withPW)
		var stdout, stderr testenv.SyncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(stdout.String(), "tps:") {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("no progress:\n%s\n%s", stdout.String(), stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cmdline")
		if err != nil {
			t.Fatal(err)
		}
		ps, err := exec.Command("ps", "-ww", "-o", "args=", "-p", strconv.Itoa(cmd.Process.Pid)).Output()
		if err != nil {
			t.Fatalf("ps: %v", err)
		}
		return strings.ReplaceAll(string(b), "\x00", " "), string(ps)
	}
	if c, ps := cmdline("env:RS_TARGET"); strings.Contains(c+ps, canary) || !strings.Contains(ps, "env:RS_TARGET") {
		t.Errorf("--target env:RS_TARGET: the command line shows the password:\n%s\n%s", c, ps)
	}
	if c, ps := cmdline(withPW); !strings.Contains(c, canary) || !strings.Contains(ps, canary) {
		t.Errorf("a URL on the command line is not visible to ps? %q %q (docs/passwords.md says it is)", c, ps)
	}
}
