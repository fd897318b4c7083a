package oltp

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// sysbenchArgs turns a test database URL into sysbench 1.0 driver options.
func sysbenchArgs(t *testing.T, raw string) []string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	switch u.Scheme {
	case "postgres", "postgresql":
		return []string{"--db-driver=pgsql", "--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(),
			"--pgsql-user=" + u.User.Username(), "--pgsql-db=" + db}
	case "mysql":
		return []string{"--db-driver=mysql", "--mysql-host=" + u.Hostname(), "--mysql-port=" + u.Port(),
			"--mysql-user=" + u.User.Username(), "--mysql-db=" + db}
	}
	t.Fatalf("no sysbench driver for %s", u.Scheme)
	return nil
}

func sysbench(t *testing.T, script, cmd string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sysbench is not installed (.ci/run installs it)")
		}
		t.Skip("sysbench is not installed")
	}
	c := exec.Command(bin, append(append([]string{script}, args...), cmd)...)
	c.Env = append(os.Environ(), "PGSSLMODE=disable")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %s %s: %v\n%s", script, cmd, err, out)
	}
	return string(out)
}

var sbTransactions = regexp.MustCompile(`transactions:\s+(\d+)`)

// interop checks both directions: sysbench 1.0 runs on tables rightsize
// prepared, and rightsize runs on tables sysbench prepared (and does not
// clean them up without --force).
func interop(t *testing.T, rawURL string) {
	ctx := context.Background()
	sizeArgs := []string{"--tables=2", "--table-size=1000"}
	sb := append(sysbenchArgs(t, rawURL), sizeArgs...)

	in := open(t, NewReadWrite(), rawURL, sizeArgs...)
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	out := sysbench(t, "oltp_read_write", "run", append(sb, "--threads=2", "--time=2")...)
	m := sbTransactions.FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("sysbench ran no transaction on rightsize's tables:\n%s", out)
	}
	if _, err := in.Cleanup(ctx, workload.PrepareOptions{}); err != nil {
		t.Fatal(err)
	}

	sysbench(t, "oltp_read_write", "prepare", sb...)
	in = open(t, NewReadWrite(), rawURL, sizeArgs...)
	// sysbench's tables have no record: never refused, their highest id is
	// compared with --table-size.
	if notes, err := in.Match(ctx); err != nil || len(notes) != 0 {
		t.Errorf("Match on sysbench's tables of the same size: notes %q, %v", notes, err)
	}
	notes, err := open(t, NewReadWrite(), rawURL, "--tables=2", "--table-size=5000").Match(ctx)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "their highest id is 1,000, --table-size asks 5,000") {
		t.Errorf("Match on sysbench's tables with --table-size 5000: notes %q, %v", notes, err)
	}
	vu, err := in.NewVU(ctx, 0, 7)
	if err != nil {
		t.Fatalf("rightsize on sysbench's tables: %v", err)
	}
	m2 := newMeter(NewReadWrite())
	for i := 0; i < 20; i++ {
		if err := vu.Event(ctx, m2); err != nil {
			t.Fatalf("step %d on sysbench's tables: %v", i, err)
		}
	}
	vu.Close()
	if _, err := in.Cleanup(ctx, workload.PrepareOptions{}); !errors.Is(err, ErrNotOwned) {
		t.Errorf("cleanup of sysbench's tables without --force: %v, want ErrNotOwned", err)
	}
	c := admin(t, in)
	if !exists(t, c, "sbtest1") {
		t.Fatal("cleanup dropped a table rightsize did not create")
	}
	sysbench(t, "oltp_read_write", "cleanup", sb...)
}

func TestSysbenchInteropPostgres(t *testing.T) { interop(t, testenv.PostgresURL(t)) }
func TestSysbenchInteropMySQL(t *testing.T)    { interop(t, testenv.MySQLURL(t)) }
