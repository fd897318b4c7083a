package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// routine is one routine stored in the database (--in-server): its name,
// what it is (FUNCTION, PROCEDURE), its identity (PostgreSQL: the name and
// its input types, rs_tpcc_delivery(integer, integer, timestamp), so that
// a user's routine of the same name and other arguments is never taken for
// it; MySQL: the name, procedures having a namespace of their own), its
// CREATE statement (from sql/, routines_sql.go) and the statement that
// calls it.
type routine struct{ name, what, ident, create, call string }

// drop is the statement that drops r, and only r.
func (r routine) drop() string { return "DROP " + r.what + " IF EXISTS " + r.ident }

// routinesVersion is the version of the routines' code. prepare records it,
// and run refuses routines of another version (prepare replaces them).
// Raise it whenever a routine's text changes (a file under sql/, or how
// routines_sql.go renders it: TestRoutinesGolden then fails until
// testdata/routines.golden.txt is refreshed with -update).
const routinesVersion = 2

// routinesRecord is the rightsize_objects record of the installed routines.
const routinesRecord = "tpcc_routines"

// routinesMeta is what the record keeps.
type routinesMeta struct {
	Version int    `json:"version"`
	Kinds   string `json:"kinds"` // "functions and procedures" or "procedures"
}

// The forms of --in-server: PostgreSQL's functions, called by SELECT, and
// procedures, called with CALL (PostgreSQL's second form, MySQL's and
// MariaDB's only one).
const (
	kindFunctions  = "functions"
	kindProcedures = "procedures"
)

// serverKind resolves --in-server's value for dialect d: "on" is the
// dialect's usual form (PostgreSQL functions, MySQL/MariaDB procedures).
// It refuses a form the database cannot run, and any form on SQLite.
func serverKind(value string, d dialect.Dialect) (string, error) {
	switch d.Name() {
	case "postgres":
		if value == "on" {
			return kindFunctions, nil
		}
		return value, nil
	case "mysql":
		if value == kindFunctions {
			return "", badTarget("--in-server=functions: MySQL and MariaDB run the transactions as stored procedures (a stored function can neither commit nor return rows): use --in-server or --in-server=procedures")
		}
		return kindProcedures, nil
	}
	return "", errInServerSQLite
}

// installedKinds names what prepare installs on d.
func installedKinds(d dialect.Dialect) string {
	if d.Name() == "postgres" {
		return kindFunctions + " and " + kindProcedures
	}
	return kindProcedures
}

// routinesFor returns the routines prepare installs on d: on PostgreSQL each
// transaction as a function and as a procedure (name_p), elsewhere as a
// procedure.
func routinesFor(d dialect.Dialect) []routine {
	if d.Name() != "postgres" {
		return mysqlProcedures[:]
	}
	var out []routine
	for t := range numTx {
		out = append(out, pgFunctions[t], pgProcedures[t])
	}
	return out
}

// callsFor returns the statements that call the routines of form kind on
// d, by transaction.
func callsFor(d dialect.Dialect, kind string) [numTx]string {
	set := &mysqlProcedures
	switch {
	case d.Name() == "postgres" && kind == kindFunctions:
		set = &pgFunctions
	case d.Name() == "postgres":
		set = &pgProcedures
	}
	var out [numTx]string
	for t, r := range set {
		out[t] = r.call
	}
	return out
}

// existingRoutines counts the routines of ours (routinesFor) that exist in
// the current schema (database), recorded or not, and names them, by their
// identity: a routine of the same name but other arguments (PostgreSQL) or
// another kind (a MySQL function) is not one of them.
func existingRoutines(ctx context.Context, c dialect.Conn, d dialect.Dialect) (n int64, names string, err error) {
	rs := routinesFor(d)
	idents := make([]string, len(rs))
	for i, r := range rs {
		idents[i] = "('" + r.ident + "')"
	}
	q := "SELECT COUNT(*), COALESCE(GROUP_CONCAT(routine_name ORDER BY routine_name SEPARATOR ', '), '') FROM information_schema.routines " +
		"WHERE routine_schema = DATABASE() AND routine_type = 'PROCEDURE' AND routine_name IN (" + strings.Join(idents, ", ") + ")"
	if d.Name() == "postgres" {
		q = "SELECT COUNT(*), COALESCE(string_agg(v.ident, '; ' ORDER BY v.ident), '') FROM (VALUES " + strings.Join(idents, ", ") + ") AS v(ident) " +
			"WHERE to_regprocedure(quote_ident(current_schema()) || '.' || v.ident) IS NOT NULL"
	}
	err = c.QueryRow(ctx, q, nil, &n, &names)
	return n, names, err
}

// countRoutines counts the routines of ours that exist (existingRoutines).
func countRoutines(ctx context.Context, c dialect.Conn, d dialect.Dialect) (int64, error) {
	n, _, err := existingRoutines(ctx, c, d)
	return n, err
}

// dropRoutines drops the routines that exist.
func dropRoutines(ctx context.Context, c dialect.Conn, d dialect.Dialect) error {
	for _, r := range routinesFor(d) {
		if _, err := c.Exec(ctx, r.drop()); err != nil {
			return fmt.Errorf("drop %s: %w", r.name, err)
		}
	}
	return nil
}

// installRoutines creates (or replaces) the five routines and records them.
// Routines of these names that rightsize_objects does not record are
// refused unless force: they are not ours to replace.
func (in *instance) installRoutines(ctx context.Context, force bool, p workload.Progress) error {
	d := in.Target.D
	c, err := in.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := objects.Ensure(ctx, c, d); err != nil {
		return err
	}
	var old routinesMeta
	owned, err := objects.Read(ctx, c, routinesRecord, &old)
	if err != nil {
		return err
	}
	if !owned && !force {
		if n, names, err := existingRoutines(ctx, c, d); err != nil {
			return err
		} else if n > 0 {
			return fmt.Errorf("%w: %d routine(s) with the names and arguments of rightsize's TPC-C routines exist but rightsize did not create them (rightsize_objects does not record them): %s; --force replaces them",
				objects.ErrNotOwned, n, names)
		}
	}
	if owned && old.Version != routinesVersion {
		p.Message(fmt.Sprintf("replacing the TPC-C %s of version %d with version %d", installedKinds(d), old.Version, routinesVersion))
	}
	if err := dropRoutines(ctx, c, d); err != nil {
		return err
	}
	for _, r := range routinesFor(d) {
		if _, err := c.Exec(ctx, r.create); err != nil {
			return fmt.Errorf("create %s: %w", r.name, err)
		}
	}
	if err := objects.Write(ctx, c, routinesRecord, Name, routinesMeta{Version: routinesVersion, Kinds: installedKinds(d)}); err != nil {
		return err
	}
	p.Message(fmt.Sprintf("installed the five transactions as %s (version %d) for run --in-server", installedKinds(d), routinesVersion))
	return nil
}

// removeRoutines drops the routines rightsize_objects records, and the
// record; unrecorded ones only with force. It reports what it removed.
func (in *instance) removeRoutines(ctx context.Context, force bool) ([]string, error) {
	d := in.Target.D
	if d.Name() != "postgres" && d.Name() != "mysql" {
		return nil, nil
	}
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_, owned, err := readRoutinesRecord(ctx, c)
	if err != nil {
		return nil, err
	}
	if !owned {
		if !force {
			return nil, nil // not ours: left as they are
		}
		if n, err := countRoutines(ctx, c, d); err != nil || n == 0 {
			return nil, err
		}
	}
	if err := dropRoutines(ctx, c, d); err != nil {
		return nil, err
	}
	if owned {
		if err := objects.Delete(ctx, c, routinesRecord); err != nil {
			return nil, err
		}
	}
	return []string{"TPC-C " + installedKinds(d) + " (rs_tpcc_*)"}, nil
}

// readRoutinesRecord reads the routines' record; owned is false when there
// is none (or no record table).
func readRoutinesRecord(ctx context.Context, c dialect.Conn) (m routinesMeta, owned bool, err error) {
	has, err := objects.Exists(ctx, c)
	if err != nil || !has {
		return m, false, err
	}
	owned, err = objects.Read(ctx, c, routinesRecord, &m)
	return m, owned, err
}

// ErrNoRoutines is returned by NewVU when --in-server finds no routines, or
// routines of another version.
var ErrNoRoutines = workload.NotPrepared("TPC-C routines not installed")

// checkRoutines verifies that prepare installed the routines of this
// version.
func (in *instance) checkRoutines(ctx context.Context, c dialect.Conn) error {
	d := in.Target.D
	again := fmt.Sprintf("run rightsize prepare tpcc --in-server --warehouses %d first (it keeps loaded tables)", in.o.Warehouses)
	m, owned, err := readRoutinesRecord(ctx, c)
	if err != nil {
		return err
	}
	switch {
	case !owned:
		return fmt.Errorf("%w: --in-server runs the transactions as %s that prepare installs: %s", ErrNoRoutines, in.kind, again)
	case m.Version != routinesVersion:
		return fmt.Errorf("%w: the database holds version %d of the TPC-C %s, this rightsize runs version %d: %s",
			ErrNoRoutines, m.Version, installedKinds(d), routinesVersion, again)
	}
	n, err := countRoutines(ctx, c, d)
	if err != nil {
		return err
	}
	if rs := routinesFor(d); n != int64(len(rs)) {
		return fmt.Errorf("%w: %d of the %d TPC-C routines exist: %s", ErrNoRoutines, n, len(rs), again)
	}
	return nil
}

// badTarget is an --in-server form the target's database cannot run: a
// usage error (it is dialect.ErrBadTarget, exit 2), said as msg.
type badTarget string

func (e badTarget) Error() string        { return string(e) }
func (e badTarget) Is(target error) bool { return target == dialect.ErrBadTarget }

// Unwrap is dialect.ErrBadTarget, which carries the exit code.
func (e badTarget) Unwrap() error { return dialect.ErrBadTarget }

// errInServerSQLite is --in-server's refusal on a database without a server.
var errInServerSQLite error = badTarget("--in-server: SQLite has no server to run stored routines; it runs TPC-C's statements from the client only (drop --in-server, or use a PostgreSQL or MySQL/MariaDB target)")
