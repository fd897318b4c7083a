package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/foreignflag"
)

// A flag of sysbench, fio, go-tpc, pgbench or k6 gets a line that says what
// rightsize calls it, or why it has none; exit 2 as for any unknown flag.
func TestForeignFlagHints(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // each in a hint line under the error
	}{
		{[]string{"run", "oltp_read_write", "--warmup-time", "5"}, []string{"--warmup-time is sysbench's: rightsize says --warmup"}},
		{[]string{"run", "oltp_read_write", "--events=1000"}, []string{"--events is sysbench's, and rightsize has no equivalent: it runs for --time"}},
		{[]string{"run", "oltp_read_write", "--time=10", "--events=0"}, []string{"--events is sysbench's, and rightsize has no equivalent: it runs for --time", "--events=0, no limit, is what rightsize always does: drop it"}},
		{[]string{"run", "oltp_read_write", "--percentile", "99"}, []string{"--percentile is sysbench's, and rightsize has no equivalent: every result reports p50, p95, p99 and p99.9"}},
		{[]string{"run", "oltp_read_write", "--db-driver", "pgsql"}, []string{"--db-driver is sysbench's: rightsize says --target (the URL's scheme"}},
		{[]string{"run", "oltp_read_write", "--mysql-host", "db"}, []string{"--mysql-host is sysbench's: rightsize says --target (--target mysql://USER@HOST:3306/DB)"}},
		{[]string{"run", "fileio", "--runtime", "60"}, []string{"--runtime is fio's: rightsize says --time"}},
		{[]string{"run", "fileio", "--ramp_time=5"}, []string{"--ramp_time is fio's: rightsize says --warmup"}},
		{[]string{"run", "fileio", "--filename", "/tmp/x"}, []string{"--filename is fio's: rightsize says --file"}},
		{[]string{"run", "fileio", "--ioengine", "libaio"}, []string{"--ioengine is fio's: rightsize says --engine"}},
		{[]string{"run", "fileio", "--direct=1"}, []string{"--direct is fio's: rightsize says --buffered (I/O is direct, O_DIRECT, by default"}},
		{[]string{"run", "fileio", "--time_based"}, []string{"--time_based is fio's, and rightsize has no equivalent: rightsize always runs for --time"}},
		{[]string{"run", "tpcc", "-H", "db"}, []string{"-H is go-tpc's --host: rightsize says --target"}},
		{[]string{"run", "tpcc", "-T", "8"}, []string{
			"-T is go-tpc's --threads: rightsize says --threads",
			"-T is pgbench's --time: rightsize says --time",
		}},
		{[]string{"run", "oltp_read_write", "-c10"}, []string{"-c is pgbench's --client: rightsize says --threads"}},
		{[]string{"run", "oltp_read_write", "-M", "prepared"}, []string{"-M is pgbench's --protocol, and rightsize has no equivalent: statements are always prepared"}},
		{[]string{"run", "pgbench", "-r", "-f", "x.sql"}, []string{"-r is pgbench's --report-per-command, and rightsize has no equivalent: each script is an operation with its own count, rate and response-time percentiles",
			"pg_stat_statements", "give the statement a script of its own"}},
		{[]string{"run", "pgbench", "--report-per-command"}, []string{"--report-per-command is pgbench's, and rightsize has no equivalent: each script is an operation"}},
		{[]string{"run", "oltp_read_write", "--vus", "10"}, []string{"--vus is k6's: rightsize says --threads"}},
		{[]string{"run", "oltp_read_write", "--duration", "1m"}, []string{"--duration is k6's: rightsize says --time"}},
		{[]string{"run", "oltp_read_write", "-i"}, []string{
			"-i is pgbench's --initialize: rightsize does it with 'rightsize prepare WORKLOAD'",
			"-i is k6's --iterations, and rightsize has no equivalent",
		}},
		// A flag rightsize has, on a command that does not take it.
		{[]string{"run", "oltp_read_write", "--bs", "4k"}, []string{"--bs (fio's too) is rightsize's on 'rightsize run fileio', not on 'rightsize run oltp_read_write'"}},
		{[]string{"prepare", "oltp_read_write", "--time", "5s"}, []string{"--time (pgbench's too) is rightsize's on 'rightsize run WORKLOAD', not on 'rightsize prepare oltp_read_write'"}},
		{[]string{"plan", "--runtime", "60"}, []string{"--runtime is fio's: rightsize says --time, on 'rightsize run WORKLOAD', not on 'rightsize plan'"}},
		{[]string{"k8s", "job", "oltp_read_write", "--runtime", "60"}, []string{"--runtime is fio's: rightsize says --time"}},
		// rightsize's own flags, spelt another way.
		{[]string{"run", "oltp_read_write", "--table_size", "10"}, []string{"rightsize spells it --table-size"}},
		{[]string{"run", "oltp_read_write", "-time", "10s"}, []string{"rightsize's long flags take two dashes: --time"}},
	} {
		o := run(t, context.Background(), tc.args...)
		if o.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", tc.args, o.code, ExitUsage, o.stderr)
			continue
		}
		lines := strings.Split(o.stderr, "\n")
		if !strings.HasPrefix(lines[0], "rightsize: unknown ") {
			t.Errorf("%v: first line %q, want the unknown flag", tc.args, lines[0])
		}
		for _, w := range tc.want {
			found := false
			for _, l := range lines[1:] {
				found = found || strings.HasPrefix(l, "  ") && strings.Contains(l, w)
			}
			if !found {
				t.Errorf("%v: no hint line holding %q in:\n%s", tc.args, w, o.stderr)
			}
		}
	}
}

// A flag no tool in the table has gets pflag's message alone.
func TestUnknownFlagWithoutHint(t *testing.T) {
	for _, args := range [][]string{
		{"run", "oltp_read_write", "--no-such-flag"},
		{"run", "oltp_read_write", "-Z"},
		{"report", "--nope"},
	} {
		o := run(t, context.Background(), args...)
		want := "rightsize: unknown " // then pflag's text, then the usage line only
		if o.code != ExitUsage || !strings.HasPrefix(o.stderr, want) || strings.Count(o.stderr, "\n") != 2 ||
			!strings.HasSuffix(o.stderr, "\nRun 'rightsize --help' for usage.\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and the plain message", args, o.code, o.stderr)
		}
	}
}

// Every hint names a flag or command that exists, and says why when there
// is none.
func TestForeignFlagsNameRealFlags(t *testing.T) {
	env := &Env{Getenv: func(string) string { return "" }}
	root := newRoot(context.Background(), env)
	seen := map[string]bool{}
	for _, f := range foreignflag.Table {
		for _, s := range f.Spellings() {
			short := len(s) == 2 && s[0] == '-' && s[1] != '-'
			if !short && !strings.HasPrefix(s, "--") {
				t.Errorf("%q: spelling %q is neither -X nor --name", f.Flag, s)
			}
			for _, tool := range f.Tools {
				if seen[s+" "+tool] {
					t.Errorf("%s is listed twice for %s", s, tool)
				}
				seen[s+" "+tool] = true
			}
		}
		if strings.ContainsAny(f.Note, "()") {
			t.Errorf("%q: note %q holds parentheses (the hint adds some)", f.Flag, f.Note)
		}
		switch {
		case f.Use == "" && f.Note == "":
			t.Errorf("%q: no equivalent and no reason", f.Flag)
		case f.Use == "":
		case strings.HasPrefix(f.Use, "--"):
			if foreignflag.Home(root, foreignflag.Dashless(f.Use)) == "" {
				t.Errorf("%q: rightsize has no flag %s", f.Flag, f.Use)
			}
		default:
			words := strings.Fields(strings.TrimSuffix(f.Use, " WORKLOAD"))
			if c, rest, err := root.Find(words); err != nil || len(rest) > 0 || c == root {
				t.Errorf("%q: 'rightsize %s' is not a command (%v, %v)", f.Flag, f.Use, rest, err)
			}
		}
	}
}

// pflag stops at the first unknown flag; the hints cover every one of the
// command line at once, so that a fio command line is mended in one go.
func TestForeignFlagsAllAtOnce(t *testing.T) {
	o := run(t, context.Background(), "run", "fileio", "--name=t", "--filename", "/tmp/x", "--bs=4k", "--runtime=10",
		"--ioengine=io_uring", "--direct=1", "--nope", "-Z", "--rate", "-1", "--", "--ignored")
	if o.code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", o.code, ExitUsage, o.stderr)
	}
	want := []string{
		"rightsize: unknown flag: --name",
		"  --name is fio's: rightsize says --label",
		"  --filename is fio's: rightsize says --file",
		"  --runtime is fio's: rightsize says --time",
		"  --ioengine is fio's: rightsize says --engine",
		"  --direct is fio's: rightsize says --buffered",
		"  --nope is unknown too",
		"  -Z is unknown too",
		"Run 'rightsize --help' for usage.",
	}
	lines := strings.Split(strings.TrimSuffix(o.stderr, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), o.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start %q", i+1, lines[i], w)
		}
	}
}

// sysbench's order (workload, then command) gets rightsize's, without
// echoing the flags (a --target may hold a password).
func TestSysbenchCommandOrder(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_read_write", "--threads=4", "--target", "postgres://u:SECRET@h/db", "run"}, "rightsize run oltp_read_write ...\n"},
		{[]string{"oltp_point_select", "prepare"}, "rightsize prepare oltp_point_select\n"},
		{[]string{"fileio"}, "rightsize run fileio\n"},
	} {
		o := run(t, context.Background(), tc.args...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, "rightsize takes the command first, then the workload") ||
			!strings.Contains(o.stderr, tc.want) || strings.Contains(o.stderr, "SECRET") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.args, o.code, o.stderr, tc.want)
		}
	}
	if o := run(t, context.Background(), "nothing"); strings.Contains(o.stderr, "takes the command first") {
		t.Errorf("an unknown word that is no workload got the order hint:\n%s", o.stderr)
	}
}

// sysbench's connection flags are put together into the one --target they
// name, sysbench's defaults filling the rest; never the password.
func TestSysbenchFlagsMakeOneTarget(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "oltp_read_write", "--db-driver=mysql", "--mysql-host=db1", "--mysql-user", "root", "--mysql-password=SECRET", "--mysql-db=bench"},
			"  together: --target mysql://root@db1:3306/bench"},
		{[]string{"run", "oltp_read_write", "--pgsql-host", "10.0.0.5", "--pgsql-port=6432", "--pgsql-password", "SECRET"},
			"  together: --target postgres://sbtest@10.0.0.5:6432/sbtest"},
	} {
		o := run(t, context.Background(), tc.args...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, tc.want+"\n") || strings.Contains(o.stderr, "SECRET") {
			t.Errorf("%v: exit %d\n%s\nwant exit 2 and %q, no password", tc.args, o.code, o.stderr, tc.want)
		}
	}
	if o := run(t, context.Background(), "run", "oltp_read_write", "--runtime", "5"); strings.Contains(o.stderr, "together") {
		t.Errorf("no sysbench connection flag, yet:\n%s", o.stderr)
	}
}

// TestUnknownFlagNeverEchoesItsValue: pflag's message for an unknown
// shorthand quotes its whole cluster ("'p' in -pSECRET8"), and its message
// for bad syntax the whole word: a password typed the way go-tpc, mysql or
// sysbench take it must not reach stderr that way, nor through any hint.
func TestUnknownFlagNeverEchoesItsValue(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		first string // the error's first line
	}{
		{[]string{"run", "oltp_read_write", "-pSECRET8"}, "unknown shorthand flag: -p"},
		{[]string{"run", "oltp_read_write", "--time=1s", "-pSECRET8"}, "unknown shorthand flag: -p"},
		{[]string{"run", "tpcc", "-p", "SECRET8"}, "unknown shorthand flag: -p"},
		{[]string{"run", "tpcc", "--password=SECRET8"}, "unknown flag: --password"},
		{[]string{"run", "oltp_read_write", "--mysql-password=SECRET8", "--mysql-host=db"}, "unknown flag: --mysql-password"},
		{[]string{"run", "oltp_read_write", "--pgsql-host=db", "--pgsql-password", "SECRET8"}, "unknown flag: --pgsql-host"},
		{[]string{"run", "oltp_read_write", "--mysql-host=db", "-pSECRET8", "--mysql-password=SECRET8"}, "unknown flag: --mysql-host"},
		{[]string{"run", "oltp_read_write", "---mysql-password=SECRET8"}, "bad flag syntax: ---mysql-password"},
		{[]string{"run", "oltp_read_write", "--=SECRET8"}, "bad flag syntax: --"},
	} {
		o := run(t, context.Background(), tc.args...)
		if o.code != ExitUsage || strings.Contains(o.stdout+o.stderr, "SECRET8") {
			t.Errorf("%q: exit %d, the password printed?\n%s%s", tc.args, o.code, o.stdout, o.stderr)
		}
		if first, _, _ := strings.Cut(o.stderr, "\n"); !strings.HasSuffix(first, tc.first) {
			t.Errorf("%q: first line %q, want it to end %q", tc.args, first, tc.first)
		}
	}
}

// TestSysbenchTargetPastes: the "together: --target URL" line is pasted
// into a shell as it is printed: what sysbench's flags carried ($(...),
// ';') comes back as one word, and nothing runs.
func TestSysbenchTargetPastes(t *testing.T) {
	args := []string{"run", "oltp_read_write", "--pgsql-host=h$(id)", "--pgsql-db=x;touch /tmp/pwned"}
	o := run(t, context.Background(), args...)
	_, line, ok := strings.Cut(o.stderr, "together: ")
	line, _, _ = strings.Cut(line, "\n")
	if !ok || o.code != ExitUsage {
		t.Fatalf("exit %d, no together line:\n%s", o.code, o.stderr)
	}
	url := foreignflag.SysbenchTarget(args)
	if got := shellWords(t, "sh", line); len(got) != 2 || got[0] != "--target" || got[1] != url || !strings.Contains(url, "$(id)") {
		t.Errorf("sh made %q of %s", got, line)
	}
}
