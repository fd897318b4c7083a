package stmtstats

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/capture"
	"github.com/rightsize/rightsize/internal/dialect"
)

// postgres reads pg_stat_statements in the schema the extension was
// created in (its total_exec_time from PostgreSQL 13, total_time before;
// from 14 its top-level entries apart and its evictions counted) and
// pg_stat_database.
type postgres struct {
	version  int // server_version_num
	user, db string
	schema   string // where the extension was created
}

// loadPG is how to make the server load the extension.
const loadPG = "add shared_preload_libraries = 'pg_stat_statements' to postgresql.conf and restart the server"

func (p *postgres) open(ctx context.Context, r *Reader) (string, error) {
	var v string
	if err := r.one(ctx, "SELECT current_setting('server_version_num'), current_user, current_database()", &v, &p.user, &p.db); err != nil {
		return "", err
	}
	p.version, _ = strconv.Atoi(v)
	if r.o.Whole {
		if p.version < 130000 {
			return "", &NotReady{Kind: Unsupported, Reason: fmt.Sprintf("PostgreSQL %d.%d: capture reads pg_stat_statements as PostgreSQL 13 and later keep it", p.version/10000, p.version%10000/100)}
		}
		var allowed bool
		if err := r.one(ctx, "SELECT rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') FROM pg_catalog.pg_roles WHERE rolname = current_user", &allowed); err != nil {
			return "", err
		}
		if !allowed {
			return "", &NotReady{Kind: Denied, Reason: fmt.Sprintf("user %s may not read other users' statements in pg_stat_statements (their text is <insufficient privilege>): run GRANT pg_read_all_stats TO %s; as a superuser", p.user, QuoteRole(p.user))}
		}
	}
	err := r.one(ctx, "SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"+
		" WHERE e.extname = 'pg_stat_statements'", &p.schema)
	if errors.Is(err, dialect.ErrNoRows) {
		return "", p.absent(ctx, r)
	}
	if err != nil {
		return "", err
	}
	return p.statementsSQL(r.o.TopLevel), nil
}

// absent says how to create the extension, and to load it when the
// server does not (reading shared_preload_libraries needs
// pg_read_all_settings).
func (p *postgres) absent(ctx context.Context, r *Reader) error {
	var preload, why string
	err := r.one(ctx, "SELECT current_setting('shared_preload_libraries')", &preload)
	switch {
	case err == nil && !preloads(preload):
		why = fmt.Sprintf("the server does not load pg_stat_statements: %s, then run CREATE EXTENSION pg_stat_statements; in database %s", loadPG, p.db)
	case err == nil:
		why = fmt.Sprintf("pg_stat_statements is loaded but not created in database %s: run CREATE EXTENSION pg_stat_statements; in it (as a superuser or the database's owner)", p.db)
	default:
		why = fmt.Sprintf("pg_stat_statements is not created in database %s: run CREATE EXTENSION pg_stat_statements; in it (the server must load it too: %s)", p.db, loadPG)
	}
	return &NotReady{Kind: Absent, Reason: why}
}

// preloads reports whether a shared_preload_libraries value names
// pg_stat_statements.
func preloads(v string) bool {
	for _, l := range strings.Split(v, ",") {
		if strings.Trim(strings.TrimSpace(l), `"`) == "pg_stat_statements" {
			return true
		}
	}
	return false
}

// statementsSQL reads the run database's statements, a row per queryid
// (its users' entries added up, and its top-level and nested ones unless
// topLevel), leaving out the statements that read a pg_stat view (the
// readers', rightsize's among them) and those whose text the user may not
// see.
func (p *postgres) statementsSQL(topLevel bool) string {
	t, top := "total_exec_time", ""
	if p.version < 130000 {
		t = "total_time"
	}
	if topLevel && p.version >= 140000 {
		top = " AND toplevel"
	}
	return "SELECT queryid::text, min(query), sum(calls)::int8, sum(" + t + ")::float8, sum(rows)::int8" +
		" FROM " + QuoteRole(p.schema) + ".pg_stat_statements" +
		" WHERE dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())" +
		" AND queryid IS NOT NULL AND query NOT LIKE '%pg\\_stat%' AND query <> '<insufficient privilege>'" + top +
		" GROUP BY queryid"
}

// failed: created but not loaded, the extension's functions say so.
func (p *postgres) failed(err error) error {
	if strings.Contains(err.Error(), "shared_preload_libraries") {
		return &NotReady{Kind: NotLoaded, Reason: "the server does not load pg_stat_statements: " + loadPG, Err: err}
	}
	return err
}

func (p *postgres) view() string { return "pg_stat_statements" }

func (p *postgres) counters(ctx context.Context, r *Reader, s *capture.Snapshot) error {
	return r.one(ctx, "SELECT xact_commit, xact_rollback FROM pg_catalog.pg_stat_database WHERE datname = current_database()", &s.Commits, &s.Rollbacks)
}

func (p *postgres) after(ctx context.Context, r *Reader, s *capture.Snapshot) error {
	if p.version < 140000 {
		return nil
	}
	return r.one(ctx, "SELECT dealloc FROM "+QuoteRole(p.schema)+".pg_stat_statements_info", &s.Evicted)
}

// QuoteRole quotes a PostgreSQL role's (or schema's) name as GRANT takes
// it.
func QuoteRole(s string) string {
	if s != "" && strings.ToLower(s) == s && !strings.ContainsAny(s, ` "-.;'`) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
