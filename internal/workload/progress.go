package workload

import "sync"

// Progress receives prepare progress; Total may be called again as work is found.
type Progress interface {
	Total(n int64)
	Add(n int64)
	Message(s string)
}

// Unit is what a Progress counts.
type Unit string

const (
	Rows  Unit = "rows"  // the default: rows loaded or checked
	Bytes Unit = "bytes" // bytes written (fileio's layout)
)

// UnitProgress is a Progress that can be told its unit (optional: a
// Progress without it counts rows).
type UnitProgress interface {
	Progress
	Unit(u Unit)
}

// SetUnit tells p, when it can be told, that its counts are u; call it
// before Total.
func SetUnit(p Progress, u Unit) {
	if up, ok := p.(UnitProgress); ok {
		up.Unit(u)
	}
}

// SyncProgress returns a Progress that serialises calls into p, for parallel
// loaders; a nil p discards everything. It passes SetUnit on.
func SyncProgress(p Progress) Progress {
	if p == nil {
		return nopProgress{}
	}
	return &syncProgress{p: p}
}

type syncProgress struct {
	mu sync.Mutex
	p  Progress
}

func (s *syncProgress) Total(n int64)    { s.do(func(p Progress) { p.Total(n) }) }
func (s *syncProgress) Add(n int64)      { s.do(func(p Progress) { p.Add(n) }) }
func (s *syncProgress) Message(m string) { s.do(func(p Progress) { p.Message(m) }) }
func (s *syncProgress) Unit(u Unit)      { s.do(func(p Progress) { SetUnit(p, u) }) }

// do calls f with the Progress, one call at a time.
func (s *syncProgress) do(f func(Progress)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.p)
}

type nopProgress struct{}

func (nopProgress) Total(int64)    {}
func (nopProgress) Add(int64)      {}
func (nopProgress) Message(string) {}
