package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/foreignflag"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// Exit codes (package exitcode, through app).
const (
	ExitOK          = int(app.ExitOK)
	ExitFailure     = int(app.ExitFailure)
	ExitUsage       = int(app.ExitUsage)
	ExitInterrupted = int(app.ExitInterrupted)
)

// Env is the process state the CLI may use, injected by main
// (app.Env).
type Env = app.Env

// Interrupt is the cancellation cause main gives the context when a signal
// arrives: it names the signal and the moment it was received, so that the
// runner judges a stop by when it was asked for (runner.Stamped), not by when
// a busy ticker got to it.
type Interrupt struct {
	Signal   fmt.Stringer
	Received time.Time
}

func (i Interrupt) Error() string { return "received " + i.Signal.String() }
func (i Interrupt) At() time.Time { return i.Received }

// usageError marks errors that mean "the command line is wrong" (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string          { return e.err.Error() }
func (e usageError) Unwrap() error          { return e.err }
func (e usageError) ExitCode() app.ExitCode { return app.ExitUsage }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Version returns the build's version: the module version or VCS revision
// (app.Version).
func Version() string { return app.Version() }

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	root := newRoot(ctx, &env)
	root.SetArgs(env.Args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if code == ExitUsage {
		err = commandOrderHint(err, env.Args)
	}
	if ctx.Err() != nil && code == ExitFailure {
		// A signal during prepare, cleanup or connecting: say so, exit 3.
		fmt.Fprintf(env.Stderr, "rightsize: interrupted (%v): %s\n", context.Cause(ctx), err)
		return ExitInterrupted
	}
	if code != ExitInterrupted {
		fmt.Fprintf(env.Stderr, "rightsize: %s\n", err)
		if code == ExitUsage {
			fmt.Fprintf(env.Stderr, "Run 'rightsize --help' for usage.\n")
		}
	}
	return code
}

// commandOrderHint adds, to the error of a command line that starts with a
// workload's name (sysbench's order), the order rightsize takes
// (foreignflag.CommandOrder).
func commandOrderHint(err error, args []string) error {
	var names []string
	for _, w := range all.All() {
		names = append(names, w.Meta().Name)
	}
	return foreignflag.CommandOrder(err, args, names)
}

// exitCode is the exit code err carries where it was made (package
// exitcode). Errors cobra returns itself (unknown command, bad flag) carry
// none: they are usage errors.
func exitCode(err error) int { return int(app.CodeOf(err, app.ExitUsage)) }

// runError marks failures of a command that was correctly invoked (exit 1).
type runError struct{ err error }

func (e runError) Error() string          { return e.err.Error() }
func (e runError) Unwrap() error          { return e.err }
func (e runError) ExitCode() app.ExitCode { return app.ExitFailure }

// wrapRun classifies an error returned by a command body: one that says it
// is a usage error or an interruption stays so, any other is a failure.
func wrapRun(err error) error {
	if err == nil || app.Carries(err, app.ExitInterrupted) || app.Carries(err, app.ExitUsage) {
		return err
	}
	return runError{err}
}

const rootLong = `rightsize benchmarks a database's workload on real servers and storage, finds
where it saturates, and right-sizes the machines that will run it.

With no --target, workloads run on an embedded SQLite database under
./rightsize-data/, so a first run needs no server:

  rightsize run oltp_read_write --time 30s

Targets are URLs: postgres://user@host:5432/db (libpq's PG* variables and
sslmode are honoured), mysql://user@host:3306/db (MySQL 8, MariaDB), or
sqlite:PATH. Give --target several times to drive several instances at once.
--target env:VAR reads the URL from the environment variable VAR, so that a
password is not on the command line, where ps shows it (docs/passwords.md).

Exit codes: 0 success; 1 the command failed, or more of a run's events
failed than --max-error-pct allows (default 1 %); 2 invalid usage or options
(nothing was opened); 3 interrupted by a signal, or a run that could not
complete its window (a stall included: no event completed in the last half
of the window while one was running; a partial result was written when the
run had started).`

func newRoot(ctx context.Context, env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "rightsize",
		Short:         "Benchmark database workloads, find the knee, right-size the VM",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version(),
	}
	root.SetFlagErrorFunc(flagErrors(env.Args))
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		phaseCommand(ctx, env, "run", "Run a workload and measure it", runCmd),
		phaseCommand(ctx, env, "prepare", "Create and load a workload's tables", prepareCmd),
		phaseCommand(ctx, env, "cleanup", "Drop the tables rightsize created for a workload, and a database prepare created once it holds nothing else", cleanupCmd),
		phaseCommand(ctx, env, "sweep", "Run a workload at several thread counts, rates or instance counts (or fileio read mixes) and find the knee", runCmd),
		phaseCommand(ctx, env, "check", "Check a prepared or run database for consistency (exit 1 when a condition fails)", checkCmd),
		analyzeCommand(env),
		historyCommand(env),
		planCommand(env),
		reportCommand(env),
		quickstartCommand(ctx, env),
		studyCommand(ctx, env),
		mergeCommand(ctx, env),
		importCommand(env),
		measureCommand(env),
		k8sCommand(ctx, env),
		captureCommand(env),
		listCommand(env),
	)
	return root
}

func listCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workloads",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, w := range all.All() {
				m := w.Meta()
				fmt.Fprintf(env.Stdout, "%-24s %s\n", m.Name, m.Short)
			}
			fmt.Fprintf(env.Stdout, "%-24s %s\n", "FILE.yaml", "your own workload, described in a file (docs/workload-files.md)")
			return nil
		},
	}
}

// workloadFile reads the workload file a command line names where a
// workload's name goes ('rightsize run my-app.yaml'): its path and
// workload, or the error that refuses it (every problem of the file with
// its line). file is "" when the phase's argument is no file's path.
func workloadFile(args []string, phase string) (file string, w workload.Workload, err error) {
	if len(args) < 2 || args[0] != phase || phase == "check" || !all.IsFile(args[1]) { // phase: or "job" of k8s job
		return "", nil, nil
	}
	w, err = all.Lookup(args[1])
	return args[1], w, err
}

// phaseBody runs one phase (run, prepare, cleanup) of a workload.
type phaseBody func(ctx context.Context, env *Env, w workload.Workload, common *runplan.Flags) error

// phaseCommand builds "rightsize <phase> <workload>" with one subcommand per
// workload, each with the workload's flags and the phase's common flags.
func phaseCommand(ctx context.Context, env *Env, phase, short string, body phaseBody) *cobra.Command {
	var ws []workload.Workload
	for _, w := range all.All() {
		if w.Meta().Check || phase != "check" {
			ws = append(ws, w)
		}
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Meta().Name
	}
	file, fw, fileErr := workloadFile(env.Args, phase)
	if phase == "run" && len(env.Args) > 1 && env.Args[0] == "k8s" && env.Args[1] == "job" { // k8s job WORKLOAD: run's subcommands
		file, fw, fileErr = workloadFile(env.Args[1:], "job")
	}
	parent := &cobra.Command{
		Use:   phase + " WORKLOAD",
		Short: short,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s: name a workload (one of: %s)", phase, strings.Join(names, ", "))
			}
			if fileErr != nil && args[0] == file {
				return usageError{fileErr}
			}
			for _, w := range all.All() {
				if w.Meta().Name == args[0] { // a workload without this phase (check)
					return usagef("%s: %s has nothing to %s (one of: %s)", phase, args[0], phase, strings.Join(names, ", "))
				}
			}
			files := "; or a workload file, FILE.yaml"
			if phase == "check" {
				files = "" // a workload file has no consistency checks
			}
			return usagef("%s: unknown workload %q (one of: %s%s)", phase, args[0], strings.Join(names, ", "), files)
		},
		RunE: func(c *cobra.Command, args []string) error { return nil },
	}
	// No workload matched, so the workload's flags are unknown here: for
	// "run oltp_nope --target X" the mistake to report is the workload, not
	// --target.
	parent.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == parent && len(env.Args) > 1 && env.Args[0] == phase && !strings.HasPrefix(env.Args[1], "-") {
			return parent.Args(parent, env.Args[1:2])
		}
		return flagError(c, err, env.Args)
	})
	if fw != nil {
		ws = append(ws, fw)
	}
	for _, w := range ws {
		common, m := &runplan.Flags{}, w.Meta()
		use := m.Name
		if w == fw {
			use = file // the path where a workload's name goes
		}
		sub := &cobra.Command{
			Use:   use,
			Short: m.Short,
			Long:  m.Long,
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				if def := w.Hooks().Definition; def != nil {
					for _, warning := range def().Warnings {
						fmt.Fprintf(env.Stderr, "rightsize: warning: %s\n", warning)
					}
				}
				return wrapRun(body(c.Context(), env, w, common))
			},
		}
		w.BindFlags(sub.Flags())
		common.Bind(sub.Flags(), phase)
		sub.Flags().SortFlags = false
		parent.AddCommand(sub)
	}
	return parent
}
