package runplan

import (
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/shard"
)

// TestLoadStep: a step's load is the shared one with the step's virtual
// users and its rate per second, a multiple of the baseline resolved, and
// this shard's part of them.
func TestLoadStep(t *testing.T) {
	two, _ := ParseRate("2x")
	fifty, _ := ParseRate("50")
	l := Load{Base: runner.Load{Duration: time.Second, Warmup: time.Second}}
	if got := l.Step(Step{Threads: 4, Rate: two}, 100); got.Threads != 4 || got.Rate != 200 || got.Duration != time.Second || got.Part != nil {
		t.Errorf("2x of 100/s: %+v", got)
	}
	if got := l.Step(Step{Threads: 4, Rate: fifty}, 100); got.Rate != 50 {
		t.Errorf("50/s: %+v", got)
	}
	if got := l.Closed(1); got.Threads != 1 || got.Rate != 0 || got.Warmup != time.Second {
		t.Errorf("closed: %+v", got)
	}
	l.Shard = &shard.Part{Instances: 1, FirstVU: 1, VUs: 1}
	if got := l.Step(Step{Threads: 4, Rate: two}, 100); got.Threads != 1 || got.Rate != 50 || got.Part == nil || got.Part.FirstVU != 1 {
		t.Errorf("a shard of one of 4 virtual users at 2x of 100/s: %+v", got)
	}
}
