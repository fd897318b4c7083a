// Package capture is the capture use case: a production server's
// statement statistics read over a window (package capturedb) and written
// as a workload file, its options checked first, every problem at once.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rightsize/rightsize/internal/app/run"
	"github.com/rightsize/rightsize/internal/capturedb"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
)

// CaptureOptions are rightsize capture's.
type CaptureOptions struct {
	Target string        // a URL or env:VAR
	For    time.Duration // the window
	Out    string        // the workload file to write
	Force  bool          // overwrite Out
	Tick   time.Duration // progress lines (0: every 10 s)
	Log    string        // the server's statement log (PostgreSQL csvlog), "" for none
}

// Capture reads the target's statement statistics over the window and
// writes them as a workload file (package capture). A wrong option, an
// existing file without Force, and a server whose statistics cannot be
// read are usage errors (capturedb.ErrNotReady says what to enable). A
// signal during the window ends it there: the file is written and the
// error wraps session.ErrInterrupted.
func Capture(ctx context.Context, env *run.Env, o CaptureOptions) error {
	var errs []error
	if o.Target == "" {
		errs = append(errs, errors.New("capture: --target is required (the production server's database: postgres://... or mysql://...)"))
	}
	if o.For < time.Second {
		errs = append(errs, fmt.Errorf("capture: --for %v: want at least 1s (the window over which the statistics are counted; 10m by default)", o.For))
	}
	if o.Tick != 0 && o.Tick < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("capture: --progress %v: want 10ms or more", o.Tick))
	}
	if o.Out == "" {
		errs = append(errs, errors.New("capture: --out is required (the workload file to write, e.g. my-app.yaml)"))
	} else if o.Out != "-" {
		fi, err := os.Stat(o.Out)
		switch {
		case err == nil && fi.IsDir():
			errs = append(errs, fmt.Errorf("capture: --out %s is a directory: name the workload file to write", o.Out))
		case err == nil && fi.Mode().IsRegular() && !o.Force:
			errs = append(errs, fmt.Errorf("capture: %s exists: give another --out, or --force to overwrite it", o.Out))
		default: // found now, not after the window
			if err := session.CheckWritable(o.Out); err != nil {
				errs = append(errs, fmt.Errorf("capture: --out %w", err))
			}
		}
	}
	raw, err := runplan.TargetFromEnv(o.Target, env.Getenv)
	if err != nil {
		errs = append(errs, fmt.Errorf("capture: --target: %w", err))
	}
	if len(errs) > 0 {
		return exitcode.With(errors.Join(errs...), exitcode.Usage)
	}
	res, err := capturedb.Capture(ctx, capturedb.Options{Target: raw, For: o.For, Progress: env.Stderr, Getenv: env.Getenv, Tick: o.Tick, Log: o.Log})
	if errors.Is(err, capturedb.ErrNotReady) {
		return exitcode.With(err, exitcode.Usage)
	}
	if err != nil {
		return err
	}
	text, err := res.Model.Render(o.Out)
	if err != nil {
		return err
	}
	if err := writeCapture(env.Stdout, o.Out, text); err != nil {
		return err
	}
	m := res.Model
	fmt.Fprintf(env.Stderr, "rightsize: wrote %s: %d transactions, %d statements making up %.1f %% of the calls, 1x = %.1f transactions per second (baseline_rate)\n",
		o.Out, len(m.Txs), statements(m), 100*m.CoveredCalls, m.Rate)
	if t := m.Traced; t != nil && t.Incomplete() {
		fmt.Fprintf(env.Stderr, "rightsize: warning: the statement log showed %.0f %% of the calls the statistics counted (statements logged apart, or the log moved to a file --log did not name: give --log the log's folder); the file's header says so\n", 100/t.Scale)
	}
	if res.Early {
		fmt.Fprintf(env.Stderr, "rightsize: the window was cut short by a signal: the file holds %v of counts\n", m.Window.Round(time.Second))
		return fmt.Errorf("capture: %w", session.ErrInterrupted)
	}
	return nil
}

func statements(m interface{ StatementCount() int }) int { return m.StatementCount() }

// writeCapture writes the workload file's text to standard output for
// "-", else as every output is written (session.WriteFile): through a
// temporary file renamed into place, so that an interrupted write leaves
// no half file, and a device or a pipe written through, never replaced.
func writeCapture(stdout io.Writer, path string, data []byte) error {
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return session.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
