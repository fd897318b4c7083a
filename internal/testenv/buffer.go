package testenv

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that a child process's output is copied into
// while the test reads it (exec copies in its own goroutine).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
