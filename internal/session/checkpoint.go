package session

// Checkpoints: the partial result of a run in progress, rewritten while it
// goes on, so that a run killed outright (SIGKILL, the OOM killer, a crash)
// still leaves its figures so far.
//
//   - File: the result's path + ".partial" (results/<id>-<workload>.json.partial,
//     or --out + ".partial"), beside where the result goes; none with --out -.
//     Written like the result: a temporary file renamed into place, so a
//     reader sees a whole checkpoint or the previous one (not fsynced: it is
//     meant to survive the process, not the machine), but compact, not
//     indented: its encoding then needs one copy of the document in memory,
//     not two (a few MiB once a long run's series is large).
//   - Timing: at the report ticks (runner.Settings.Snapshot), every tick but
//     the measured window's last (the result follows it), at most once a
//     second of the ticks' nominal times: with --report-interval under 1 s,
//     ticks closer than that to the previous checkpoint's are skipped, so the
//     file is at most max(--report-interval, 1 s) old, plus the time to
//     write it (a tick that fires late makes it later still). The
//     checkpoint grows with the run's series (about 1.2 KB per interval with
//     one instance); past 1 MiB, the next one waits a second per MiB, so
//     checkpoints never write more than 1 MiB/s (a run of many hours is
//     checkpointed every few seconds to minutes). The file is written by its
//     own goroutine, so a slow disk never delays a tick; a checkpoint taken
//     while the previous one is still being written waits for it, and only
//     the newest waits.
//   - Content: a result file (result.Decode reads it) of the run up to the
//     checkpoint's last interval, from the runner's HDR totals
//     (runner.Settings.Snapshot): summary, warm-up, ops with their histograms,
//     intervals, instances, host and client figures; open-loop dropped
//     starts only as far as virtual users gave them up, and no workload's
//     own figures (tpcc, fileio: computed at the end). Marked partial with
//     partial_reason starting "checkpoint (the run did not finish)", and a
//     checkpoint object: pid, hostname, when written, the result's path.
//   - End: removed once the result is written, after a complete run or a
//     handled signal; kept when the process dies, and when the result
//     cannot be written (a full disk): then it is renamed
//     <result>-<id>.json.unwritten.partial (a rename needs no free space),
//     and, where there is room, its checkpoint object records why
//     (result_error); the error names it.
//   - Staleness: run and sweep look for *.partial files in the directory their
//     results go to before they open anything. A checkpoint whose pid is not
//     alive on this host is stale: one line on stderr reports the interrupted
//     run (or the run whose result could not be written, with why when the
//     checkpoint says), and the file is left where it is (it is the user's data; it is
//     reported again at the next start until it is deleted). One from another
//     host, or whose pid is alive, is a run still going and is not reported
//     (a pid reused since then hides it until that process ends). A stale
//     checkpoint at a path this run will write to (the same --out) is first
//     renamed, its run's id added to its name, rather than overwritten.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

const (
	// checkpointSuffix is appended to the result's path.
	checkpointSuffix = ".partial"
	// unwrittenSuffix ends a checkpoint kept because its result could not
	// be written.
	unwrittenSuffix = ".unwritten" + checkpointSuffix
	// CheckpointReason starts a checkpoint's partial_reason.
	CheckpointReason = "checkpoint (the run did not finish)"
	checkpointDetail = "; figures up to its last interval, without the workload's own (tpcc, fileio)"
	// checkpointEvery is the shortest time between two checkpoints.
	checkpointEvery = time.Second
	// checkpointRate bounds the bytes written per second: after a
	// checkpoint of n bytes the next waits n/checkpointRate seconds or more.
	checkpointRate = 1 << 20
)

// checkpointer writes one run step's checkpoints. snapshot is called from
// the runner's ticker goroutine; stop from the goroutine that ran the step,
// after runner.Run returned.
type checkpointer struct {
	path, result string
	pid          int
	host         string
	slack        time.Duration // half a report interval: tick jitter
	describe     func(*result.Run)
	obs          observers

	last   time.Time // nominal tick of the last checkpoint taken (ticker goroutine only)
	id     string    // the run's id, from the first checkpoint taken (ticker goroutine, then keep)
	warned bool      // a write error was reported (ticker goroutine, then stop)

	wg      sync.WaitGroup
	mu      sync.Mutex
	writing bool
	pending *result.Run // taken while another was being written; the newest only
	size    int64       // of the last checkpoint, bytes
	err     error       // of the last write
	wrote   bool        // a checkpoint file is in place
}

// newCheckpointer returns the checkpointer of a step whose result goes to
// out, or nil when it goes nowhere ("-"); its warnings go to obs.
func newCheckpointer(out, hostname string, interval time.Duration, describe func(*result.Run), obs observers) *checkpointer {
	if out == "-" || out == "" {
		return nil
	}
	return &checkpointer{
		path: out + checkpointSuffix, result: out, pid: os.Getpid(), host: hostname,
		slack: interval / 2, describe: describe, obs: obs,
	}
}

// snapshot is runner.Settings.Snapshot: it takes and writes a checkpoint when
// one is due at the tick at.
func (c *checkpointer) snapshot(at time.Time, take func() (*result.Run, error)) {
	size, _ := c.written(" (the run goes on)")
	gap := max(checkpointEvery, time.Duration(size)*time.Second/checkpointRate)
	if !c.last.IsZero() && at.Sub(c.last) < gap-c.slack {
		return
	}
	r, err := take()
	if err != nil {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		return
	}
	c.last = at
	c.describe(r)
	c.id = r.ID
	r.Partial, r.Summary.Partial = true, true
	r.PartialReason = CheckpointReason + checkpointDetail
	r.Checkpoint = &result.Checkpoint{PID: c.pid, Hostname: c.host, Written: time.Now(), Result: c.result}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writing {
		c.pending = r
		return
	}
	c.writing = true
	c.wg.Add(1)
	go c.write(r)
}

// written is what the writes so far left: the last checkpoint's size, and
// whether a checkpoint file is in place. The first time the last write
// failed, it warns (more: what the warning adds).
func (c *checkpointer) written(more string) (size int64, wrote bool) {
	c.mu.Lock()
	size, wrote, err := c.size, c.wrote, c.err
	c.mu.Unlock()
	if err != nil && !c.warned {
		c.warned = true
		c.obs.warn("checkpoint not written: %v%s", err, more)
	}
	return size, wrote
}

// write writes r, then whatever checkpoint was taken meanwhile.
func (c *checkpointer) write(r *result.Run) {
	defer c.wg.Done()
	for r != nil {
		n, err := writeAtomic(c.path, r, false)
		c.mu.Lock()
		c.size, c.err = n, err
		if err == nil {
			c.wrote = true
		}
		r, c.pending = c.pending, nil
		c.writing = r != nil
		c.mu.Unlock()
	}
}

// stop waits for a write in flight. With resultWritten it removes the
// checkpoint and returns ""; otherwise it keeps it and returns its path ("" when
// none was written).
func (c *checkpointer) stop(resultWritten bool) string {
	if c == nil {
		return ""
	}
	c.wg.Wait()
	if _, wrote := c.written(""); !wrote {
		return ""
	}
	if !resultWritten {
		return c.path
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		c.obs.warn("checkpoint not removed: %v", err)
	}
	return ""
}

// keep is stop for a result that could not be written (why: err): the
// checkpoint is kept, renamed <result>-<id>.json.unwritten.partial so that
// the next run does not take it for an interrupted run's, and marked with
// err where the disk has room for it. It returns the kept checkpoint's
// path ("" when none was written).
func (c *checkpointer) keep(err error) string {
	p := c.stop(false)
	if p == "" {
		return ""
	}
	ext, id := filepath.Ext(c.result), ""
	if c.id != "" {
		id = "-" + result.FileSafe(c.id)
	}
	kept := strings.TrimSuffix(c.result, ext) + id + ext + unwrittenSuffix
	if rerr := os.Rename(p, kept); rerr != nil {
		c.obs.warn("checkpoint not renamed: %v", rerr)
		kept = p
	}
	r, rerr := ReadResult(kept)
	if rerr != nil || r.Checkpoint == nil {
		return kept
	}
	r.Checkpoint.ResultError = err.Error()
	writeAtomic(kept, r, false) // no room: the name alone tells
	return kept
}

// reportInterrupted prints one line for each stale checkpoint in dir (see
// the top of this file) and leaves it in place; one at a path this run may
// write to (ownPrefix: the base name its results start with, "" when they
// are unique) is renamed first.
func reportInterrupted(dir, ownPrefix, hostname string, obs observers) {
	if dir == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return // no results yet
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, checkpointSuffix) || strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, name)
		r, err := ReadResult(p)
		if err != nil {
			obs.warn("%s: not a readable checkpoint (%v); left in place", p, err)
			continue
		}
		if running(r.Checkpoint, hostname) {
			continue
		}
		if ownPrefix != "" && strings.HasPrefix(name, ownPrefix) && r.ID != "" && !strings.Contains(name, r.ID) {
			base := strings.TrimSuffix(p, checkpointSuffix)
			ext := filepath.Ext(base)
			aside := strings.TrimSuffix(base, ext) + "-" + result.FileSafe(r.ID) + ext + checkpointSuffix
			if _, err := os.Lstat(aside); errors.Is(err, os.ErrNotExist) && os.Rename(p, aside) == nil {
				p = aside
			}
		}
		measured := fmt.Sprintf("(measured %s s of %s s)", roundSecs(r.Summary.DurationS), roundSecs(r.Load.DurationS))
		switch {
		case r.Checkpoint != nil && r.Checkpoint.ResultError != "":
			obs.warn("an earlier run's result could not be written (%s): %s %s, its checkpoint is at %s %s", r.Checkpoint.ResultError, r.ID, r.Workload, p, measured)
		case strings.HasSuffix(name, unwrittenSuffix):
			obs.warn("an earlier run's result could not be written: %s %s, its checkpoint is at %s %s", r.ID, r.Workload, p, measured)
		default:
			obs.warn("an earlier run was interrupted: %s %s, checkpoint %s %s", r.ID, r.Workload, p, measured)
		}
	}
}

// running reports whether the process that wrote a checkpoint may still be
// writing it: its pid is alive on this host, or the checkpoint is another
// host's (which this one cannot tell).
func running(c *result.Checkpoint, host string) bool {
	if c == nil || c.PID <= 0 {
		return false
	}
	if c.Hostname != "" && host != "" && c.Hostname != host {
		return true
	}
	if c.PID == os.Getpid() {
		return true
	}
	err := syscall.Kill(c.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// roundSecs writes seconds to one decimal, without a trailing ".0".
func roundSecs(s float64) string {
	return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64)
}
