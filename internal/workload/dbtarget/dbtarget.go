// Package dbtarget is what every database workload (oltp, tpcc) shares about
// its targets: parsing a --target URL into a dialect, the default embedded
// SQLite file, and the part of an instance that reports what it is connected
// to.
package dbtarget

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/workload"
)

// DB is a parsed database target with its dialect. String never
// contains a password.
type DB struct {
	T *dialect.Location
	D dialect.Dialect
}

func (t *DB) String() string { return t.T.String() }

// Identity is what the target resolves to (dialect.Location.Identity); its
// String when the dialect names none.
func (t *DB) Identity() string {
	if t.T.Identity != "" {
		return t.T.Identity
	}
	return t.T.String()
}

// LocalServer is where the database runs when the host figures can find
// it (workload.TargetHooks.LocalServer): "embedded" for one inside this process, a
// server's address on this host, or nothing.
func (t *DB) LocalServer() (network, address string) {
	if t.D.Capabilities().Embedded {
		return "embedded", ""
	}
	return t.T.Local.Network, t.T.Local.Address
}

// DefaultSQLite is the default target of instance index: a SQLite file
// ./rightsize-data/<base>.db, or <base>-<index>.db after the first.
func DefaultSQLite(base string, index int) string {
	if index <= 0 {
		return "sqlite:./rightsize-data/" + base + ".db"
	}
	return "sqlite:./rightsize-data/" + base + "-" + strconv.Itoa(index) + ".db"
}

// Parse parses a database URL (any scheme in dialect/all) with o's
// environment and connect timeout; an empty raw means def.
func Parse(raw, def string, o workload.TargetOptions) (*DB, error) {
	if strings.TrimSpace(raw) == "" {
		raw = def
	}
	t, d, err := dialectall.ForURL(raw, o.Getenv)
	if err != nil {
		return nil, err
	}
	t.ConnectTimeout = o.ConnectTimeout
	return &DB{T: t, D: d}, nil
}

// Base is the part of a database workload's instance that knows its
// target and reports it (workload.Base's Info, Classify and Close). Embed
// it by value and call Init before use; its methods are safe for concurrent use.
type Base struct {
	workload.Described
	Target *DB
}

// Init binds the instance to t; Info starts with the dialect's notes.
func (in *Base) Init(t *DB) {
	caps := t.D.Capabilities()
	in.Target = t
	in.SetInfo(workload.InstanceInfo{
		Target:     t.String(),
		Dialect:    t.D.Name(),
		Notes:      append([]string(nil), caps.Notes...),
		BlockingIO: caps.BlockingIO,
		Embedded:   caps.Embedded,
		Local:      caps.Embedded,
	})
}

// Connect opens a connection and records the server's details in Info.
func (in *Base) Connect(ctx context.Context) (dialect.Conn, error) {
	c, err := in.Target.D.Connect(ctx, in.Target.T)
	if err != nil {
		return nil, err
	}
	ci := c.Info()
	in.Update(func(i *workload.InstanceInfo) {
		if i.ServerVersion == "" {
			i.ServerProduct, i.ServerVersion, i.Encrypted, i.TLS = ci.ServerProduct, ci.ServerVersion, ci.Encrypted, ci.TLSVersion
		}
	})
	return c, nil
}

// Classify is the dialect's classification.
func (in *Base) Classify(err error) errclass.Class { return in.Target.D.Classify(err) }

// Close releases nothing: VUs own their connections.
func (in *Base) Close() error { return nil }

// Number derives n targets from one (--instances n): for a sqlite: path to a
// directory (ending in /), the files DIR/<base>-1.db .. DIR/<base>-n.db; for
// a sqlite: file, FILE-1.db .. FILE-n.db (before its extension); for a server
// URL, the databases (MySQL schemas) NAME_1 .. NAME_n on the same server, which
// prepare creates. An empty raw gives the default files of indexes 0..n-1.
// The results may hold the password of raw: parse them, never print them.
func Number(raw, base string, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: --instances %d: want 1 or more", dialect.ErrBadTarget, n)
	}
	out := make([]string, n)
	if strings.TrimSpace(raw) == "" || n == 1 {
		for i := range out {
			out[i] = raw
			if raw == "" {
				out[i] = DefaultSQLite(base, i)
			}
		}
		return out, nil
	}
	if len(raw) >= 7 && strings.EqualFold(raw[:7], "sqlite:") {
		path := raw[7:]
		for i := range out {
			num := strconv.Itoa(i + 1)
			if strings.HasSuffix(path, "/") {
				out[i] = raw[:7] + path + base + "-" + num + ".db"
				continue
			}
			ext := filepath.Ext(path)
			if strings.ContainsRune(ext, '/') {
				ext = ""
			}
			out[i] = raw[:7] + strings.TrimSuffix(path, ext) + "-" + num + ext
		}
		return out, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("%w: --instances %d: cannot number a target that is not a sqlite: path or a server URL (scheme://host/database)", dialect.ErrBadTarget, n)
	}
	name := strings.Trim(u.Path, "/")
	if name == "" || strings.Contains(name, "/") {
		shown := *u // without the password, nor the parameters (they may hold one)
		shown.RawQuery, shown.Fragment = "", ""
		return nil, fmt.Errorf("%w: --instances %d from %s: name one database in the URL to number (e.g. .../sbtest gives sbtest_1 .. sbtest_%d)",
			dialect.ErrBadTarget, n, shown.Redacted(), n)
	}
	for i := range out {
		v := *u
		v.Path, v.RawPath = "/"+name+"_"+strconv.Itoa(i+1), ""
		out[i] = v.String()
	}
	return out, nil
}

// Opener builds a workload's instance on a parsed database target, without
// connecting (prepare may first have to create the database).
type Opener func(ctx context.Context, t *DB) (workload.Instance, error)

// bound is a database target bound to the workload that parsed it.
type bound struct {
	*DB
	open Opener
}

var _ workload.Target = bound{}

func (b bound) Open(ctx context.Context) (workload.Instance, error) { return b.open(ctx, b.DB) }

// Hooks: a database target knows its identity, where its server runs and
// its location for rightsize's own connection.
func (b bound) Hooks() workload.TargetHooks {
	return workload.TargetHooks{Identity: b.Identity, LocalServer: b.LocalServer, DropCreatedDatabase: b.DropCreatedDatabase}
}

// Located returns the location and dialect of a target that is a
// database's (ParseFor's), for a connection of rightsize's own beside the
// workload's (the server statistics' monitor); false for another target.
func Located(t workload.Target) (*dialect.Location, dialect.Dialect, bool) {
	b, ok := t.(bound)
	if !ok {
		return nil, nil, false
	}
	return b.T, b.D, true
}

// ParseFor is a database workload's ParseTarget: raw is a database URL (any
// scheme in dialect/all), empty meaning DefaultSQLite(base, o.Index); the
// target opens through open, with the workload's options as they are then.
func ParseFor(raw, base string, o workload.TargetOptions, open Opener) (workload.Target, error) {
	tg, err := Parse(raw, DefaultSQLite(base, o.Index), o)
	if err != nil {
		return nil, err
	}
	return bound{tg, open}, nil
}
