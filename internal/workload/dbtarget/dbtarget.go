// Package dbtarget is what every database workload (oltp, tpcc) shares about
// its targets: parsing a --target URL into a dialect, the default embedded
// SQLite file, and the part of an instance that reports what it is connected
// to.
package dbtarget

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/workload"
)

// Target is a parsed database target with its dialect. String never
// contains a password.
type Target struct {
	T *dialect.Target
	D dialect.Dialect
}

func (t *Target) String() string { return t.T.String() }

// DefaultSQLite is the default target of instance index: a SQLite file
// ./rightsize-data/<base>.db, or <base>-<index>.db after the first.
func DefaultSQLite(base string, index int) string {
	if index <= 0 {
		return "sqlite:./rightsize-data/" + base + ".db"
	}
	return "sqlite:./rightsize-data/" + base + "-" + strconv.Itoa(index) + ".db"
}

// Parse parses a database URL (any scheme in dialect/all); an empty raw
// means def.
func Parse(raw, def string, getenv func(string) string) (*Target, error) {
	if strings.TrimSpace(raw) == "" {
		raw = def
	}
	t, d, err := dialectall.ForURL(raw, getenv)
	if err != nil {
		return nil, err
	}
	return &Target{T: t, D: d}, nil
}

// Of returns t as parsed by Parse, or an error naming workload when it was not.
func Of(workloadName string, t workload.Target) (*Target, error) {
	tg, ok := t.(*Target)
	if !ok || tg == nil {
		return nil, fmt.Errorf("%s: target %v was not parsed by this workload", workloadName, t)
	}
	return tg, nil
}

// Instance is the part of a database workload's instance that knows its
// target and reports it (workload.Instance's Info, Classify and Close). Embed
// it by value and call Init before use; its methods are safe for concurrent use.
type Instance struct {
	workload.Described
	Target *Target
}

// Init binds the instance to t; Info starts with the dialect's notes.
func (in *Instance) Init(t *Target) {
	caps := t.D.Capabilities()
	in.Target = t
	in.SetInfo(workload.InstanceInfo{
		Target:     t.String(),
		Dialect:    t.D.Name(),
		Notes:      append([]string(nil), caps.Notes...),
		BlockingIO: caps.BlockingIO,
	})
}

// Connect opens a connection and records the server's details in Info.
func (in *Instance) Connect(ctx context.Context) (dialect.Conn, error) {
	c, err := in.Target.D.Connect(ctx, in.Target.T)
	if err != nil {
		return nil, err
	}
	ci := c.Info()
	in.Update(func(i *workload.InstanceInfo) {
		if i.ServerVersion == "" {
			i.ServerVersion, i.Encrypted, i.TLS = ci.ServerVersion, ci.Encrypted, ci.TLSVersion
		}
	})
	return c, nil
}

// Classify is the dialect's classification.
func (in *Instance) Classify(err error) errclass.Class { return in.Target.D.Classify(err) }

// Close releases nothing: VUs own their connections.
func (in *Instance) Close() error { return nil }
