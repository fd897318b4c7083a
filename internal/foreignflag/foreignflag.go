package foreignflag

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/shellword"
)

// Flag is a flag of another benchmark tool that rightsize does not take,
// and what a user of that tool should write instead. The hint is shown
// under "unknown flag" (Explain); the table is data, checked by cli's
// TestForeignFlagsNameRealFlags against the command tree.
type Flag struct {
	Flag  string   // as the tool spells it: "--runtime", "-T", "-c, --client"
	Tools []string // whose flag it is, with this meaning
	// Use is rightsize's flag that does the same ("--time"), or a command
	// ("prepare WORKLOAD": its words before WORKLOAD name one), or "" when
	// rightsize has no equivalent.
	Use  string
	Note string // what else to know; with Use == "", why there is none
}

// Reasons shared by several tools' flags.
const (
	whyCount    = "it runs for --time, since a fixed count would end each step of a sweep at a different time, and steps are compared over equal windows"
	whyPctl     = "every result reports p50, p95, p99 and p99.9, the average and the maximum, from full HDR histograms"
	howPassword = "the password goes in the URL; --target env:VAR reads the URL from a variable, off the command line: docs/passwords.md"
	howDirect   = "I/O is direct, O_DIRECT, by default; --buffered goes through the page cache, fio's --direct=0"
	howScheme   = "the URL's scheme chooses the database: postgres://, mysql:// or sqlite:PATH"
	howJobs     = "virtual users are goroutines, which Go spreads over every CPU"
)

var (
	sysbench = []string{"sysbench"}
	fio      = []string{"fio"}
	gotpc    = []string{"go-tpc"}
	pgbench  = []string{"pgbench"}
	k6       = []string{"k6"}
)

// Table holds the flags a user of sysbench, fio, go-tpc, pgbench or k6
// is likely to type. One flag may appear once per meaning (-T is go-tpc's
// thread count and pgbench's duration). Underscores match dashes
// (--ramp_time, --ramp-time). Notes hold no parentheses: a hint puts them
// in some.
var Table = []Flag{
	// sysbench 1.0 (and its 0.4/0.5 names)
	{"--warmup-time", sysbench, "--warmup", ""},
	{"--events", sysbench, "", whyCount + "; --events=0, no limit, is what rightsize always does: drop it"},
	{"--max-requests", sysbench, "", whyCount},
	{"--max-time", sysbench, "--time", ""},
	{"--num-threads", sysbench, "--threads", ""},
	{"--tx-rate", sysbench, "--rate", ""},
	{"--percentile", sysbench, "", whyPctl},
	{"--db-driver", sysbench, "--target", howScheme},
	{"--mysql-host", sysbench, "--target", "--target mysql://USER@HOST:3306/DB"},
	{"--mysql-port", sysbench, "--target", "--target mysql://USER@HOST:PORT/DB"},
	{"--mysql-user", sysbench, "--target", "--target mysql://USER@HOST:3306/DB"},
	{"--mysql-db", sysbench, "--target", "--target mysql://USER@HOST:3306/DB"},
	{"--mysql-socket", sysbench, "--target", "--target 'mysql://USER@localhost/DB?socket=/run/mysqld/mysqld.sock'"},
	{"--mysql-password", sysbench, "--target", howPassword},
	{"--pgsql-host", sysbench, "--target", "--target postgres://USER@HOST:5432/DB"},
	{"--pgsql-port", sysbench, "--target", "--target postgres://USER@HOST:PORT/DB"},
	{"--pgsql-user", sysbench, "--target", "--target postgres://USER@HOST:5432/DB"},
	{"--pgsql-db", sysbench, "--target", "--target postgres://USER@HOST:5432/DB"},
	{"--pgsql-password", sysbench, "--target", howPassword},
	{"--mysql-ignore-errors", sysbench, "--retry", "the error classes after which a transaction is run again: deadlock, serialization, lock_timeout, constraint"},
	{"--rand-seed", sysbench, "--seed", ""},
	{"--db-ps-mode", sysbench, "", "statements are always prepared, as with --db-ps-mode=auto"},
	{"--forced-shutdown", sysbench, "--grace", "how long events in flight may finish at the end"},
	{"--file-total-size", sysbench, "--size", ""},
	{"--file-block-size", sysbench, "--bs", ""},
	{"--file-test-mode", sysbench, "--rw", "seqrd, seqwr, rndrd, rndwr, rndrw are read, write, randread, randwrite, randrw"},
	{"--file-rw-ratio", sysbench, "--read", "a read percentage: --read 60 is a ratio of 1.5"},
	{"--file-io-mode", sysbench, "--engine", "io_uring or psync"},
	{"--file-extra-flags", sysbench, "--buffered", howDirect},
	{"--file-num", sysbench, "", "one file per --target; repeat --target for several files or devices"},
	// fio
	{"--runtime", fio, "--time", ""},
	{"--ramp-time", fio, "--warmup", ""},
	{"--time-based", fio, "", "rightsize always runs for --time"},
	{"--filename", fio, "--file", "or --target, repeated for several files or devices"},
	{"--ioengine", fio, "--engine", "io_uring or psync"},
	{"--direct", fio, "--buffered", howDirect},
	{"--blocksize", fio, "--bs", ""},
	{"--readwrite", fio, "--rw", ""},
	{"--bs", fio, "--bs", ""},
	{"--rw", fio, "--rw", ""},
	{"--iodepth", fio, "--iodepth", ""},
	{"--numjobs", fio, "--numjobs", ""},
	{"--size", fio, "--size", ""},
	{"--filesize", fio, "--size", ""},
	{"--rwmixread", fio, "--rwmixread", ""},
	{"--rwmixwrite", fio, "--rwmixread", "100 minus it"},
	{"--name", fio, "--label", ""},
	{"--output", fio, "--out", "a result is JSON; 'rightsize report' renders it"},
	{"--output-format", fio, "", "a result is always JSON, written to --out; 'rightsize report --format' renders it as html, md, csv or text"},
	{"--group-reporting", fio, "", "threads are always reported together"},
	{"--steadystate, --ss", fio, "--steady-state", "its value is the window; --steady-tolerance the drift allowed"},
	{"--ss-dur", fio, "--steady-state", "the window"},
	{"--rate-iops", fio, "--rate", "I/Os per second: one event is one I/O"},
	{"--randseed", fio, "--seed", ""},
	{"--io-size", fio, "", whyCount},
	{"--number-ios", fio, "", whyCount},
	{"--percentile-list", fio, "", whyPctl},
	// go-tpc
	{"-H, --host", gotpc, "--target", "the URL's host: --target postgres://USER@HOST:5432/DB"},
	{"-P, --port", gotpc, "--target", "the URL's port: --target mysql://USER@HOST:PORT/DB"},
	{"-U, --user", gotpc, "--target", "the URL's user: --target postgres://USER@HOST/DB"},
	{"-p, --password", gotpc, "--target", howPassword},
	{"-D, --db", gotpc, "--target", "the URL's database: --target postgres://USER@HOST/DB"},
	{"-d, --driver", gotpc, "--target", howScheme},
	{"-T, --threads", gotpc, "--threads", "virtual users per instance"},
	{"--warehouses", gotpc, "--warehouses", ""},
	{"--interval", gotpc, "--report-interval", ""},
	{"--count", gotpc, "", whyCount},
	{"--ignore-error", gotpc, "--retry", "the error classes after which a transaction is run again"},
	{"--wait", gotpc, "--think-scale", "1 runs the spec's keying and think times"},
	{"--conn-params", gotpc, "--target", "the URL's query parameters: --target 'postgres://USER@HOST/DB?sslmode=require'"},
	{"--dropdata", gotpc, "cleanup WORKLOAD", "it drops only what prepare created"},
	{"--check-all", gotpc, "check WORKLOAD", ""},
	// pgbench
	{"-c, --client", pgbench, "--threads", "virtual users per instance"},
	{"-j, --jobs", pgbench, "", howJobs},
	{"-T, --time", pgbench, "--time", ""},
	{"-R, --rate", pgbench, "--rate", "events per second per instance, open loop, latency from the intended start"},
	{"-P, --progress", pgbench, "--report-interval", ""},
	{"-M, --protocol", pgbench, "", "statements are always prepared, as with -M prepared"},
	{"-r, --report-per-command", pgbench, "", "each script is an operation with its own count, rate and response-time percentiles; per statement, " +
		"the server's own time is named when pg_stat_statements is installed and loaded in the database: the statements that took most of it in each step, " +
		"with calls per second and ms each; for one statement's response time as the client sees it, give the statement a script of its own"},
	{"-t, --transactions", pgbench, "", whyCount},
	{"-s, --scale", pgbench, "--table-size", "rows per table; tpcc: --warehouses; 'rightsize run pgbench' takes -s"},
	{"-i, --initialize", pgbench, "prepare WORKLOAD", ""},
	{"-S, --select-only", pgbench, "run pgbench", "it takes -S: pgbench's select-only script on pgbench's tables"},
	{"-f", pgbench, "run pgbench", "it takes -f FILE.sql: pgbench's scripts; a workload file of rightsize's: FILE.yaml"},
	{"-U, --username", pgbench, "--target", "the URL's user: --target postgres://USER@HOST/DB"},
	{"-p, --port", pgbench, "--target", "the URL's port: --target postgres://USER@HOST:PORT/DB"},
	{"--dbname", pgbench, "--target", "the URL's database: --target postgres://USER@HOST/DB"},
	// k6
	{"-u, --vus", k6, "--threads", "virtual users per instance"},
	{"-d, --duration", k6, "--time", ""},
	{"-i, --iterations", k6, "", whyCount},
	{"--rps", k6, "--rate", "events per second per instance, open loop"},
	{"-s, --stage", k6, "sweep WORKLOAD", "a sweep steps through a list of --threads or --rate"},
	{"-o, --out", k6, "--out", ""},
}

// Explain is err, pflag's error for c's command line args (the process's,
// without the program's name), made to help: for a flag rightsize does not
// know, it says what rightsize calls it when it is another tool's (or why
// there is none), or how rightsize spells it; and does the same, at once,
// for the other flags of args that c does not take (pflag stops at the
// first), so that a fio command line is mended in one go. The value a flag
// was typed with is never repeated (valueless).
func Explain(c *cobra.Command, err error, args []string) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return valueless(err)
	}
	first := unknownFlag{ne.GetSpecifiedName(), ne.GetSpecifiedShortnames()}
	err = valueless(err)
	lines := first.hints(c)
	for _, u := range otherUnknown(c, args, first) {
		h := u.hints(c)
		if len(h) == 0 {
			h = []string{"  " + u.given() + " is unknown too"}
		}
		lines = append(lines, h...)
	}
	if t := SysbenchTarget(args); t != "" {
		lines = append(lines, "  together: "+shellword.Join([]string{"--target", t}))
	}
	if len(lines) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s", err, strings.Join(lines, "\n"))
}

// flagMessage is an error that reads msg and wraps err, pflag's.
type flagMessage struct {
	msg string
	err error
}

func (e flagMessage) Error() string { return e.msg }
func (e flagMessage) Unwrap() error { return e.err }

// valueless is err, pflag's, without the value the flag was typed with:
// pflag's message for an unknown shorthand shows its whole cluster ("'p'
// in -pSECRET", go-tpc's and mysql's password) and its bad syntax the whole
// word ("---password=SECRET"); these say "unknown shorthand flag: -p" and
// "bad flag syntax: ---password". Other errors are as pflag says them (an
// unknown long flag is named without its "=value"; an invalid argument is
// one of rightsize's flags, none of which takes a password apart from a
// URL, which flags do not check).
func valueless(err error) error {
	var ne *pflag.NotExistError
	var se *pflag.InvalidSyntaxError
	switch {
	case errors.As(err, &ne) && ne.GetSpecifiedShortnames() != "":
		return flagMessage{"unknown shorthand flag: -" + ne.GetSpecifiedName(), err}
	case errors.As(err, &se):
		name, _, _ := strings.Cut(se.GetSpecifiedFlag(), "=")
		return flagMessage{"bad flag syntax: " + name, err}
	}
	return err
}

// SysbenchTarget is the --target that sysbench's connection flags in args
// (--mysql-host, --pgsql-user, ...) name together, sysbench's defaults
// filling the rest; "" when args have none. The password is never put in
// it (--target env:VAR keeps it off the command line).
func SysbenchTarget(args []string) string {
	given := map[string]string{}
	scheme := ""
	for i, a := range args {
		name, val, eq := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		db, field, ok := strings.Cut(name, "-")
		if !strings.HasPrefix(a, "--") || !ok || db != "mysql" && db != "pgsql" ||
			!slices.Contains([]string{"host", "port", "user", "db"}, field) {
			continue
		}
		if !eq && i+1 < len(args) {
			val = args[i+1]
		}
		if scheme != "" && scheme != db {
			return "" // both databases' flags: no one target
		}
		scheme, given[field] = db, val
	}
	if scheme == "" {
		return ""
	}
	u := url.URL{Scheme: "mysql", Host: "localhost", User: url.User("sbtest"), Path: "/sbtest"}
	port := "3306"
	if scheme == "pgsql" {
		u.Scheme, port = "postgres", "5432"
	}
	if v := given["host"]; v != "" {
		u.Host = v
	}
	if v := given["port"]; v != "" {
		port = v
	}
	u.Host = net.JoinHostPort(u.Host, port)
	if v := given["user"]; v != "" {
		u.User = url.User(v)
	}
	if v := given["db"]; v != "" {
		u.Path = "/" + v
	}
	return u.String()
}

// unknownFlag is a flag as pflag reports it: name without dashes (one
// letter for a shorthand) and group, the cluster of shorthands it was in
// ("T4" of -T4; "" for a long flag).
type unknownFlag struct{ name, group string }

// given is the flag as the user typed it: "--runtime", "-T".
func (u unknownFlag) given() string {
	if u.group != "" {
		return "-" + u.name
	}
	return "--" + u.name
}

// hints are the lines for u under the error, each indented; none when
// rightsize knows nothing to say.
func (u unknownFlag) hints(c *cobra.Command) []string {
	if len(u.group) > 1 && c.Flags().Lookup(u.group) != nil { // -time
		return []string{"  rightsize's long flags take two dashes: --" + u.group}
	}
	var lines []string
	for _, f := range Table {
		if f.spells(u.given()) {
			lines = append(lines, "  "+f.hint(c, u.given()))
		}
	}
	if dashed := strings.ReplaceAll(u.name, "_", "-"); len(lines) == 0 && u.group == "" && c.Flags().Lookup(dashed) != nil {
		lines = append(lines, "  rightsize spells it --"+dashed)
	}
	return lines
}

// otherUnknown lists the flags in args (up to "--") that c does not take,
// each once, first aside. A word that is a number ("-1") is a value.
func otherUnknown(c *cobra.Command, args []string, first unknownFlag) []unknownFlag {
	seen := map[string]bool{first.given(): true}
	var out []unknownFlag
	for _, a := range args {
		if a == "--" {
			break
		}
		var u unknownFlag
		if long, ok := strings.CutPrefix(a, "--"); ok {
			u.name, _, _ = strings.Cut(long, "=")
			if u.name == "" || c.Flags().Lookup(u.name) != nil {
				continue
			}
		} else if len(a) > 1 && a[0] == '-' {
			if _, err := strconv.ParseFloat(a, 64); err == nil {
				continue
			}
			u.group, _, _ = strings.Cut(a[1:], "=")
			if u.group == "" || c.Flags().ShorthandLookup(u.group[:1]) != nil {
				continue
			}
			u.name = u.group[:1]
		} else {
			continue
		}
		if !seen[u.given()] {
			seen[u.given()] = true
			out = append(out, u)
		}
	}
	return out
}

// Spellings are f's short and long forms: "-c", "--client".
func (f Flag) Spellings() []string { return strings.Split(f.Flag, ", ") }

// spells reports whether given (as typed, "-T" or "--ramp_time") is f,
// underscores matching dashes.
func (f Flag) spells(given string) bool {
	for _, s := range f.Spellings() {
		if s == strings.ReplaceAll(given, "_", "-") {
			return true
		}
	}
	return false
}

// Dashless is a flag's name for Lookup: "--time" is "time".
func Dashless(flag string) string { return strings.TrimLeft(flag, "-") }

// hint is the line for f under "unknown flag" on c, given as typed.
func (f Flag) hint(c *cobra.Command, given string) string {
	sp := f.Spellings()
	who := given + " is " + possessive(f.Tools)
	if long := sp[len(sp)-1]; !strings.HasPrefix(given, "--") && strings.HasPrefix(long, "--") {
		who += " " + long // -T is pgbench's --time
	}
	var s string
	switch {
	case f.Use == "":
		return fmt.Sprintf("%s, and rightsize has no equivalent: %s", who, f.Note)
	case !strings.HasPrefix(f.Use, "-"):
		s = fmt.Sprintf("%s: rightsize does it with 'rightsize %s'", who, f.Use)
	case c.Flags().Lookup(Dashless(f.Use)) != nil:
		s = fmt.Sprintf("%s: rightsize says %s", who, f.Use)
	case strings.ReplaceAll(given, "_", "-") == f.Use:
		// rightsize's own flag (the other tool's too), on another command.
		return fmt.Sprintf("%s (%s too) is rightsize's on '%s', not on '%s'", given, possessive(f.Tools), Home(c, Dashless(f.Use)), c.CommandPath())
	case slices.Contains(sp, f.Use):
		s = fmt.Sprintf("%s: rightsize has it on '%s', not on '%s'", who, Home(c, Dashless(f.Use)), c.CommandPath())
	default:
		s = fmt.Sprintf("%s: rightsize says %s, on '%s', not on '%s'", who, f.Use, Home(c, Dashless(f.Use)), c.CommandPath())
	}
	if f.Note != "" {
		s += " (" + f.Note + ")"
	}
	return s
}

// possessive is "fio's", "go-tpc's and pgbench's".
func possessive(tools []string) string {
	p := make([]string, len(tools))
	for i, t := range tools {
		p[i] = t + "'s"
	}
	return strings.Join(p, " and ")
}

// Home is the path of a command that takes the flag name: a sibling of
// c under the same parent (run fileio for run oltp_read_write), else one
// under run, else the first in the tree. A parent whose every subcommand takes it is named with
// WORKLOAD: "rightsize run WORKLOAD".
func Home(c *cobra.Command, name string) string {
	var scopes []*cobra.Command
	if c.HasParent() && c.Parent() != c.Root() {
		scopes = append(scopes, c.Parent())
	}
	if run, _, err := c.Root().Find([]string{"run"}); err == nil && run != c.Root() {
		scopes = append(scopes, run)
	}
	for _, p := range scopes {
		var with []*cobra.Command
		for _, s := range p.Commands() {
			if s.Flags().Lookup(name) != nil {
				with = append(with, s)
			}
		}
		switch {
		case len(with) > 1 && len(with) == len(p.Commands()):
			return p.CommandPath() + " WORKLOAD"
		case len(with) > 0:
			return with[0].CommandPath()
		}
	}
	var walk func(*cobra.Command) string
	walk = func(x *cobra.Command) string {
		if x.Flags().Lookup(name) != nil {
			return x.CommandPath()
		}
		for _, s := range x.Commands() {
			if p := walk(s); p != "" {
				return p
			}
		}
		return ""
	}
	return walk(c.Root())
}
