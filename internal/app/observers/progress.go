package observers

import (
	"fmt"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/rightsize/rightsize/internal/topology"
	"github.com/rightsize/rightsize/internal/workload"
)

// progress shows prepare's progress: an animated bar on a terminal, a line
// every 10 % otherwise (logs, CI).
type progress struct {
	mu    sync.Mutex
	out   Out
	name  string
	bar   *progressbar.ProgressBar
	unit  workload.Unit
	total int64
	done  int64
	shown int64 // last tenth printed (non-terminal)
}

var _ workload.UnitProgress = (*progress)(nil)

// NewProgress is the progress of what name (a target) loads or checks,
// shown on out.Stderr (a bar when out.Terminal).
func NewProgress(out Out, name string) workload.UnitProgress {
	return &progress{out: out, name: name, unit: workload.Rows}
}

// Progresses makes the progress of each target a session prepares
// (session.Options.Progress).
func Progresses(out Out) func(name string) workload.Progress {
	return func(name string) workload.Progress { return NewProgress(out, name) }
}

// Unit sets what the counts are (before Total): rows, or bytes shown in
// binary units.
func (p *progress) Unit(u workload.Unit) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unit = u
}

// count writes n in the progress's unit: "1200 rows", "12 MiB".
func (p *progress) count(n int64) string {
	if p.unit == workload.Bytes {
		return topology.FormatBytes(n)
	}
	return fmt.Sprintf("%d %s", n, p.unit)
}

func (p *progress) Total(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = n
	if p.out.Terminal {
		if p.bar == nil {
			opts := []progressbar.Option{
				progressbar.OptionSetWriter(p.out.Stderr),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100 * time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.out.Stderr) }),
			}
			if p.unit == workload.Bytes {
				opts = append(opts, progressbar.OptionSetDescription("writing"), progressbar.OptionShowBytes(true), progressbar.OptionUseIECUnits(true))
			} else {
				opts = append(opts, progressbar.OptionSetDescription("loading "+string(p.unit)), progressbar.OptionShowIts(), progressbar.OptionSetItsString(string(p.unit)))
			}
			p.bar = progressbar.NewOptions64(n, opts...)
		} else {
			p.bar.ChangeMax64(n)
		}
	}
}

func (p *progress) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.bar != nil {
		_ = p.bar.Add64(n)
		return
	}
	if p.total > 0 {
		if tenth := p.done * 10 / p.total; tenth > p.shown {
			p.shown = tenth
			fmt.Fprintf(p.out.Stderr, "  %s: %s of %s (%d%%)\n", p.name, p.count(p.done), p.count(p.total), tenth*10)
		}
	}
}

func (p *progress) Message(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Describe(s)
		return
	}
	fmt.Fprintf(p.out.Stderr, "  %s: %s\n", p.name, s)
}
