package runner

import (
	"testing"

	"github.com/rightsize/rightsize/internal/shard"
)

// TestLoadShard: a shard of whole instances keeps every virtual user and
// the rate of each; a shard of each instance's virtual users takes their
// share of its rate.
func TestLoadShard(t *testing.T) {
	l := Load{Threads: 5, Rate: 100}
	byInstance := l.Shard(shard.Part{ByInstance: true, FirstInstance: 2, Instances: 2, VUs: 5})
	if byInstance.Threads != 5 || byInstance.Rate != 100 || *byInstance.Part != (Part{FirstInstance: 2}) {
		t.Errorf("by instance: %+v %+v", byInstance, *byInstance.Part)
	}
	byVU := l.Shard(shard.Part{Instances: 1, FirstVU: 2, VUs: 3})
	if byVU.Threads != 3 || byVU.Rate != 60 || *byVU.Part != (Part{FirstVU: 2}) {
		t.Errorf("by virtual user: %+v %+v", byVU, *byVU.Part)
	}
	if closed := (Load{Threads: 5}).Shard(shard.Part{Instances: 1, FirstVU: 2, VUs: 3}); closed.Rate != 0 || closed.Threads != 3 {
		t.Errorf("closed loop: %+v", closed)
	}
	if l.Part != nil || l.Threads != 5 || l.Rate != 100 {
		t.Errorf("Shard changed its receiver: %+v", l)
	}
}
