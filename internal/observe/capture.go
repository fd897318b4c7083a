package observe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rightsize/rightsize/internal/capturedb"
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
}

// Capture reads the target's statement statistics over the window and
// writes them as a workload file (package capture). A wrong option, an
// existing file without Force, and a server whose statistics cannot be
// read are usage errors (capturedb.ErrNotReady says what to enable). A
// signal during the window ends it there: the file is written and the
// error wraps session.ErrInterrupted.
func Capture(ctx context.Context, env *Env, o CaptureOptions) error {
	var errs []error
	if o.Target == "" {
		errs = append(errs, errors.New("capture: --target is required (the production server's database: postgres://... or mysql://...)"))
	}
	if o.For < time.Second {
		errs = append(errs, fmt.Errorf("capture: --for %v: want at least 1s (the window over which the statistics are counted; 10m by default)", o.For))
	}
	if o.Out == "" {
		errs = append(errs, errors.New("capture: --out is required (the workload file to write, e.g. my-app.yaml)"))
	} else if _, err := os.Stat(o.Out); err == nil && !o.Force {
		errs = append(errs, fmt.Errorf("capture: %s exists: give another --out, or --force to overwrite it", o.Out))
	}
	raw, err := runplan.TargetFromEnv(o.Target, env.Getenv)
	if err != nil {
		errs = append(errs, fmt.Errorf("capture: --target: %w", err))
	}
	if len(errs) > 0 {
		return usage{errors.Join(errs...)}
	}
	res, err := capturedb.Capture(ctx, capturedb.Options{Target: raw, For: o.For, Progress: env.Stderr, Getenv: env.Getenv, Tick: o.Tick})
	if errors.Is(err, capturedb.ErrNotReady) {
		return usage{err}
	}
	if err != nil {
		return err
	}
	text, err := res.Model.Render(o.Out)
	if err != nil {
		return err
	}
	if err := writeFile(o.Out, text); err != nil {
		return err
	}
	m := res.Model
	fmt.Fprintf(env.Stderr, "rightsize: wrote %s: %d transactions, %d statements making up %.1f %% of the calls, 1x = %.1f transactions per second (baseline_rate)\n",
		o.Out, len(m.Txs), statements(m), 100*m.CoveredCalls, m.Rate)
	if res.Early {
		fmt.Fprintf(env.Stderr, "rightsize: the window was cut short by a signal: the file holds %v of counts\n", m.Window.Round(time.Second))
		return fmt.Errorf("capture: %w", session.ErrInterrupted)
	}
	return nil
}

func statements(m interface{ StatementCount() int }) int { return m.StatementCount() }

// writeFile writes data to path through a temporary file in its folder,
// so that an interrupted write leaves no half file.
func writeFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".capture-*.yaml")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
