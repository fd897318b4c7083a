package stored

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// File is what a stored file holds: a result, a sweep or a plan (rightsize
// plan --format json), one of them.
type File struct {
	Path  string
	Run   *result.Run
	Sweep *result.Sweep
	Plan  *sizing.Report
}

// What names what f holds: "result", "sweep file" or "plan".
func (f File) What() string {
	switch {
	case f.Sweep != nil:
		return "sweep file"
	case f.Plan != nil:
		return "plan"
	}
	return "result"
}

// ReadFile reads the result, sweep or plan file at path, a result upgraded
// to this build's figures (workload/all.Upgrade). Errors name path, not the
// command: the caller prefixes its own.
func ReadFile(path string) (File, error) {
	f, err := ReadAsWritten(path)
	upgrade(f.Run)
	return f, err
}

// ReadAsWritten reads the result, sweep or plan file at path as it was
// written (a result not upgraded: history import records it so, and merge
// merges the shards so). They are told apart by their fields: "axis" is a
// sweep's (checked as DecodeSweep checks), "summary" a result's, "host" and
// "ht_gain_pct" a plan's. The file is read as session.ReadFile reads: no
// more than result.MaxFileSize, no device.
func ReadAsWritten(path string) (File, error) {
	b, err := session.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return File{}, fmt.Errorf("%s is not JSON: %w", path, err)
	}
	_, axis := keys["axis"]
	_, summary := keys["summary"]
	_, host := keys["host"]
	_, htGain := keys["ht_gain_pct"]
	f := File{Path: path}
	switch {
	case axis:
		f.Sweep, err = DecodeSweep(path, b)
	case summary:
		f.Run, err = decodeRun(path, b)
	case host && htGain:
		var pr sizing.Report
		if err = json.Unmarshal(b, &pr); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
		f.Plan = &pr
	default:
		err = fmt.Errorf("%s is neither a result, a sweep nor a plan (rightsize plan --format json)", path)
	}
	if err != nil {
		return File{}, err
	}
	return f, nil
}

// ErrNoSteps is a sweep that holds no step: nothing was measured, so there
// is nothing to report, analyse or plan from.
var ErrNoSteps = errors.New("a sweep with no steps: nothing to report")

// DecodeSweep decodes the sweep file p (its bytes b), the one check every
// command that reads a sweep file shares (report, analyze, plan --from,
// history import, import --into): JSON of this build's schema version,
// with an axis and at least one step (ErrNoSteps). Its errors name p and
// not the command: the caller prefixes its own.
func DecodeSweep(p string, b []byte) (*result.Sweep, error) {
	var sw result.Sweep
	if err := json.Unmarshal(b, &sw); err != nil {
		return nil, fmt.Errorf("%s is not a sweep file (rightsize sweep writes <id>-<workload>-sweep.json): %w", p, err)
	}
	if sw.SchemaVersion != result.SchemaVersion {
		return nil, fmt.Errorf("%s has schema version %d; this rightsize reads sweep files of schema version %d", p, sw.SchemaVersion, result.SchemaVersion)
	}
	if sw.Axis == "" && len(sw.Steps) == 0 {
		return nil, fmt.Errorf("%s is not a sweep file: it names no axis and has no steps (a run's result? report reads those)", p)
	}
	if sw.Axis == "" {
		return nil, fmt.Errorf("%s is not a sweep file: it names no axis", p)
	}
	if len(sw.Steps) == 0 {
		return nil, fmt.Errorf("%s: %w", p, ErrNoSteps)
	}
	return &sw, nil
}

// ReadSweep reads the sweep file at path (a sweep file and nothing else).
func ReadSweep(path string) (*result.Sweep, error) {
	b, err := session.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeSweep(path, b)
}

// ReadRun reads the result file at the first of paths that exists,
// upgraded, and says which it was ("" when none exists): a sweep's step,
// where the sweep recorded it, else beside the sweep file.
func ReadRun(paths ...string) (*result.Run, string, error) {
	var firstErr error
	for _, p := range paths {
		b, err := session.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if err != nil {
			return nil, p, err
		}
		r, err := decodeRun(p, b)
		upgrade(r)
		return r, p, err
	}
	return nil, "", firstErr
}

// decodeRun decodes the result file p (its bytes b) as it was written.
func decodeRun(p string, b []byte) (*result.Run, error) {
	r, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return r, nil
}

// upgrade gives a result read back (from a file or the catalog) this
// build's figures: the one place the upgrade is called.
func upgrade(r *result.Run) { all.Upgrade(r) }
