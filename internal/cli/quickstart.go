package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/config"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// quickstartCommand is the whole story on the embedded default: the vm-rate
// study at its small scale on SQLite (a baseline, 1x..5x of it), a VM
// right-sized for this machine, and the HTML report, in brief.
func quickstartCommand(ctx context.Context, env *Env) *cobra.Command {
	var dir string
	var stepTime time.Duration
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Run the vm-rate study small on an embedded SQLite file: 1x..5x a baseline rate, the knee, a VM planned for this machine, and the HTML report (about 1 minute)",
		Long: `quickstart runs, in --dir (default ./rightsize-quickstart), the vm-rate study at
its small scale (rightsize study run vm-rate --scale small) on an embedded
SQLite file:

  1. oltp_read_write on 2 tables of 20,000 rows, an open loop at 1x, 2x, 3x,
     4x and 5x of a baseline rate (small: 400 transactions/s), 8 virtual
     users, a short warm-up and --time per step;
  2. the sweep's analysis: the knee, the bottleneck there, CPU per
     transaction;
  3. rightsize plan for this machine (/sys), right-sizing a VM for 3x at 80 %
     CPU;
  4. rightsize report: one HTML file, the answer first.

It prints each command before it runs and one line per step, and ends with
the report's path and the answer. The result files, the sweep file and the
plan are in --dir.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if stepTime < time.Second {
				return usagef("quickstart: --time %v: want at least 1s", stepTime)
			}
			if err := makeIgnoredDir(dir); err != nil {
				return runError{fmt.Errorf("quickstart: %w", err)}
			}
			return quickstart(ctx, env, dir, stepTime)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "rightsize-quickstart", "directory for the database, results, plan and report")
	config.DurationVar(cmd.Flags(), &stepTime, "time", 10*time.Second, "measured time of each of the 5 steps")
	return cmd
}

// quickstart runs vm-rate small in dir, briefly, then says where the report
// is and what it answers.
func quickstart(ctx context.Context, env *Env, dir string, stepTime time.Duration) error {
	brief := *env
	brief.Brief = true
	o := studyOptions{scale: "small", dir: dir, prepare: "always", replaceOurs: true, targets: []string{"sqlite:" + filepath.Join(dir, "sbtest.db")},
		extra: []string{"--time=" + stepTime.String(), "--warmup=" + (stepTime / 3).Round(100*time.Millisecond).String()}}
	if err := runStudy(ctx, &brief, "vm-rate", o); err != nil {
		return err
	}
	sweeps, _ := filepath.Glob(filepath.Join(dir, "*-sweep.json"))
	if len(sweeps) != 1 {
		return runError{fmt.Errorf("quickstart: %d sweep files in %s, want 1", len(sweeps), dir)}
	}
	l, err := loadFiles([]string{sweeps[0], filepath.Join(dir, "plan.json")})
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	return report.WriteHeadline(env.Stdout, report.Headline(report.Doc{Sweep: l.sweep, Plan: l.plan}), report.Text)
}

// sweepWith sweeps the named workload with the given options, as 'rightsize
// sweep NAME args...' does.
func sweepWith(ctx context.Context, env *Env, name string, args []string) (*session.Outcome, error) {
	w := all.ByName(name)
	if w == nil {
		return nil, fmt.Errorf("no workload %s", name)
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	w.BindFlags(fs)
	var f config.Flags
	f.Bind(fs, config.PhaseSweep)
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	p, err := f.Plan(w, planEnv(env))
	if err != nil {
		return nil, err
	}
	o, err := execute(ctx, env, p)
	return o, wrapRun(err)
}

// printCommand prints a command line, as the user would type it: safe to
// paste (shellJoin), with the passwords of its locations removed as results
// show them (redactArgs).
func printCommand(env *Env, args []string) {
	fmt.Fprintf(env.Stdout, "\n$ rightsize %s\n", shellJoin(redactArgs(args)))
}

// locationFlags are the flags whose value is a database's or a catalog's
// location, which may hold a password.
var locationFlags = []string{"--target", "--history"}

// redactArgs is args with each location flag's value (--target=URL, or
// --target URL) passed through dialect.Redact: the password of a URL and
// its password parameters removed, a location that does not parse and may
// hold one replaced; an env:VAR or a file's path shown as it is.
func redactArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		for _, f := range locationFlags {
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				out[i] = f + "=" + dialect.Redact(v)
			} else if a == f && i+1 < len(out) {
				out[i+1] = dialect.Redact(out[i+1])
			}
		}
	}
	return out
}

// shellJoin joins arguments into a line a POSIX shell splits back into
// them (shellQuote each).
func shellJoin(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellQuote is a as one shell word: as it is when it holds only
// characters a shell takes literally anywhere in a word; else in single
// quotes, each single quote in it closed, escaped and reopened (the four
// characters quote, backslash, quote, quote). An argument with a character a
// terminal would act on or not show (a newline, an escape sequence, a
// right-to-left override) is written $'...' instead, each such byte as
// \xHH, so that none reaches the terminal raw (bash, zsh, ksh and
// POSIX.1-2024 shells read $'...'; the study refuses such characters in
// what it prints, this only keeps a path typed with one from the screen).
func shellQuote(a string) string {
	switch {
	case a != "" && !strings.ContainsFunc(a, notPlain):
		return a
	case !hasUnprintable(a):
		return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(a); {
		r, n := utf8.DecodeRuneInString(a[i:])
		switch {
		case (r == utf8.RuneError && n == 1) || unprintable(r):
			for _, c := range []byte(a[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(a[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// notPlain reports whether r needs quoting in a shell word: anything but
// ASCII letters, digits and @%+=:,./_- (a '~' expands, '#' starts a
// comment, '!' recalls history, brackets and braces glob or expand).
func notPlain(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
}

// hasUnprintable reports whether s holds a byte that is not valid UTF-8 or
// an unprintable character.
func hasUnprintable(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, unprintable)
}

// unprintable reports whether a terminal would act on r or not show it: a
// control character but the tab, a format character (U+202E turns the
// text right to left), a separator other than the space.
func unprintable(r rune) bool {
	return !unicode.IsPrint(r) && r != ' ' && r != '\t'
}
