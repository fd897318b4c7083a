package observers

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/rightsize/rightsize/internal/session"
)

// NewProfiler writes a Go CPU profile of the measured steps to path
// (--cpuprofile).
func NewProfiler(path string) session.Observer { return &profiler{path: path} }

// profiler writes a Go CPU profile of the measured steps (--cpuprofile).
type profiler struct {
	session.Base
	path string
	f    *os.File
}

func (p *profiler) Begin(*session.Outcome) error {
	f, err := os.Create(p.path)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.f = f
	return nil
}

func (p *profiler) End(*session.Outcome) error {
	if p.f != nil {
		pprof.StopCPUProfile()
		p.f.Close()
	}
	return nil
}
