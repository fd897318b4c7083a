package session

import (
	"context"
	"testing"

	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/workload"
)

// target is a workload.Target that only has a name.
type target string

func (t target) String() string                                { return string(t) }
func (target) Open(context.Context) (workload.Instance, error) { return nil, nil }
func (target) Hooks() workload.TargetHooks                     { return workload.TargetHooks{} }

// TestConfigName: --config, else the label, else the first target's host,
// else (an embedded database, a file) this host's name.
func TestConfigName(t *testing.T) {
	for _, tc := range []struct {
		config, label string
		targets       []workload.Target
		want          string
	}{
		{"24 vCPU", "tuned", []workload.Target{target("postgres://u@db1:5432/x")}, "24 vCPU"},
		{"", "tuned", []workload.Target{target("postgres://u@db1:5432/x")}, "tuned"},
		{"", "", []workload.Target{target("postgres://u@db1:5432/x?sslmode=disable"), target("postgres://u@db2/x")}, "db1:5432"},
		{"", "", []workload.Target{target("mysql://root@10.0.0.7:3306/sb")}, "10.0.0.7:3306"},
		{"", "", []workload.Target{target("sqlite:/tmp/sb.db")}, "loadgen"},
		{"", "", []workload.Target{target("/data/fio.dat")}, "loadgen"},
	} {
		s := &session{plan: &runplan.Plan{Config: tc.config, Label: tc.label, Targets: tc.targets}, opt: Options{Hostname: "loadgen"}}
		if got := s.configName(); got != tc.want {
			t.Errorf("config %q, label %q, targets %v: %q, want %q", tc.config, tc.label, tc.targets, got, tc.want)
		}
	}
}
