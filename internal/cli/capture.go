package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
)

const captureLong = `capture reads, over a window, what a production server counts about its own
statements and writes a workload file to read, edit and run on a copy:

  rightsize capture --target postgres://app@prod/app --for 10m --out my-app.yaml
  rightsize sweep my-app.yaml --rate 1x,2x,3x,4x,5x --threads 16 --target postgres://app@copy/app --allow-writes

PostgreSQL: pg_stat_statements (loaded by shared_preload_libraries and
created in the database) and pg_stat_database; the user needs
pg_read_all_stats. MySQL 8 and MariaDB: performance_schema's digest summary
and the Com_commit/Com_rollback counters; the user needs SELECT on
performance_schema. Without them capture refuses (exit 2) and says what to
enable or grant.

The file holds the statements that make up 99 % of the calls and of the
time, each transaction's calls as its weight, statements that ran equally
often on a shared table as one transaction, and baseline_rate: the rate
--rate 1x means. Every parameter is bound to the column it is compared with
(values sampled from the target at run time), with a comment on each guess
and TODO where capture could not tell. No value of production is written:
statements are normalized. capture only reads, and leaves its own queries
out.

--log FILE reads the server's statement log too (PostgreSQL: csvlog with
log_min_duration_statement = 0; MySQL, MariaDB: the slow query log's file
with long_query_time = 0): the statements each transaction
ran, in their order; the values parameters took (key skew as a zipfian,
the ranges of amounts, limits and constants: the only numbers of
production the file then holds); keys a transaction carries from
statement to statement as one parameter; sessions and think time. Ctrl-C ends the window early: the file is written with what was
counted, and capture exits 3. See docs/capture.md.`

func captureCommand(env *Env) *cobra.Command {
	var o app.CaptureOptions
	c := &cobra.Command{
		Use:   "capture --target URL --out FILE.yaml",
		Short: "Write a workload file from a production server's statement statistics (its mix and its rate)",
		Long:  captureLong,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return wrapRun(app.Capture(c.Context(), env, o))
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.Target, "target", "", "the production database: postgres://user@host/db or mysql://user@host/db (env:VAR reads it from the environment, keeping a password off the command line)")
	fs.DurationVar(&o.For, "for", 10*time.Minute, "the window over which the statistics are counted")
	fs.StringVar(&o.Out, "out", "", "the workload file to write (- for standard output); an existing file is replaced only with --force, a device or pipe is written through")
	fs.BoolVar(&o.Force, "force", false, "overwrite --out if it exists")
	fs.StringVar(&o.Log, "log", "", "the server's statement log, read too: PostgreSQL's log folder or one of its csvlog files (log_min_duration_statement = 0; the files rotation adds are followed), or MySQL's/MariaDB's slow query log file (long_query_time = 0): transactions as they ran, parameter values (key skew), sessions and think time")
	fs.DurationVar(&o.Tick, "progress", 10*time.Second, "how often a progress line is written on stderr (10ms or more)")
	return c
}
