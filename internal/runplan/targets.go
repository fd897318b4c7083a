package runplan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/workload"
)

// EnvTarget is the prefix of --target env:VAR: the target is the value of
// the environment variable VAR, so that a password in the URL stays off the
// command line, which ps shows to every user of the host.
const EnvTarget = "env:"

// TargetFromEnv returns raw, or for env:VAR the value of VAR. Its errors
// never quote the value.
func TargetFromEnv(raw string, getenv func(string) string) (string, error) {
	name, ok := strings.CutPrefix(raw, EnvTarget)
	if !ok {
		return raw, nil
	}
	valid := name != ""
	for i, r := range name {
		valid = valid && (r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9')
	}
	if !valid {
		return "", fmt.Errorf("%q: want env:VARIABLE, the name of an environment variable that holds the target URL", raw)
	}
	v := strings.TrimSpace(getenv(name))
	switch {
	case v == "":
		return "", fmt.Errorf("env:%s: the environment variable %s is not set or empty", name, name)
	case strings.HasPrefix(v, EnvTarget):
		return "", fmt.Errorf("env:%s: the variable holds another env: reference, not a target URL", name)
	}
	return v, nil
}

// ParseTargets validates the workload's options and every --target without
// opening anything, returning every problem at once (as an Error). Two
// targets that resolve to one database or file (TargetHooks.Identity; the
// same text otherwise) are refused, naming both. With
// --instances N it gives N targets: the first N of several --target, or N
// numbered from one (numbered is then true).
func (c *Flags) ParseTargets(w workload.Workload, getenv func(string) string) (ts []workload.Target, numbered bool, err error) {
	var errs []error
	if err := w.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.ConnectTimeout <= 0 && c.fs != nil {
		errs = append(errs, fmt.Errorf("connect-timeout %v: want a positive duration", c.ConnectTimeout))
	}
	raws := make([]string, len(c.Targets))
	for i, raw := range c.Targets {
		if raws[i], err = TargetFromEnv(raw, getenv); err != nil {
			errs = append(errs, fmt.Errorf("--target #%d: %w", i+1, err))
		}
	}
	if len(raws) == 0 {
		raws = []string{""}
	}
	counts, err := c.InstanceCounts()
	if err != nil {
		errs = append(errs, err)
	}
	if n := slices.Max(append(counts, 0)); n > 0 {
		switch number := w.Hooks().NumberTargets; {
		case len(c.Targets) > 1 && n > len(c.Targets):
			errs = append(errs, fmt.Errorf("instances %d: only %d --target given (give one, to number databases from it, or at least %d)", n, len(c.Targets), n))
		case len(c.Targets) > 1:
			raws = raws[:n]
		case number == nil && n > 1:
			errs = append(errs, fmt.Errorf("instances %d: %s cannot number targets from one; give one --target per instance", n, w.Meta().Name))
		case number != nil:
			nr, err := number(raws[0], n)
			if err != nil {
				errs = append(errs, err)
			} else {
				raws, numbered = nr, n > 1
			}
		}
	}
	type first struct {
		n int // --target #n
		t workload.Target
	}
	seen := map[string]first{}
	for i, raw := range raws {
		t, err := w.ParseTarget(raw, workload.TargetOptions{Getenv: getenv, Index: i, ConnectTimeout: c.ConnectTimeout})
		if err != nil {
			errs = append(errs, fmt.Errorf("--target #%d: %w", i+1, err))
			continue
		}
		id := t.String()
		if identity := t.Hooks().Identity; identity != nil {
			id = identity()
		}
		switch f, ok := seen[id]; {
		case !ok:
			seen[id] = first{i + 1, t}
		case f.t.String() == t.String():
			errs = append(errs, fmt.Errorf("--target #%d: %s is given twice; each instance needs its own database", i+1, t))
		default:
			errs = append(errs, fmt.Errorf("--target #%d %s is the same target as --target #%d %s (they resolve to one host, port, database and user, or one file; localhost, 127.0.0.1 and ::1 are one host); each instance needs its own database",
				i+1, t, f.n, f.t))
		}
		ts = append(ts, t)
	}
	if len(errs) > 0 {
		return nil, false, Error{errors.Join(errs...)}
	}
	return ts, numbered, nil
}

// InstanceCounts parses --instances: nil when not given; a list only for
// sweep.
func (c *Flags) InstanceCounts() ([]int, error) {
	if strings.TrimSpace(c.Instances) == "" {
		return nil, nil
	}
	ns, err := IntList(c.Instances)
	if err != nil {
		return nil, fmt.Errorf("instances %q: %v", c.Instances, err)
	}
	if len(ns) > 1 && c.phase != PhaseSweep {
		return nil, fmt.Errorf("instances %q: a list is for sweep; give one number", c.Instances)
	}
	for _, n := range ns {
		if n > MaxInstances {
			return nil, fmt.Errorf("instances %d: at most %d at once (each is a database of its own, opened and prepared before the run)", n, MaxInstances)
		}
	}
	return ns, nil
}

// MaxInstances is the most instances one run drives: the studies scale
// to 32; a thousand databases is already more than one generator should
// prepare.
const MaxInstances = 1000
