package postgres

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/rightsize/rightsize/internal/dialect"
)

// envKeys maps every environment variable pgconn.ParseConfig reads by itself
// (pgconn's parseEnvSettings, pgx v5.12) to the libpq keyword it sets. ParseTarget
// resolves each of them through getenv and writes the result, or a neutral
// value equal to pgconn's default, explicitly into the connection string it
// hands to pgconn, so the process environment never wins over getenv.
var envKeys = [...]struct{ env, key string }{
	{"PGHOST", "host"},
	{"PGPORT", "port"},
	{"PGDATABASE", "dbname"},
	{"PGUSER", "user"},
	{"PGPASSWORD", "password"},
	{"PGPASSFILE", "passfile"},
	{"PGAPPNAME", "application_name"},
	{"PGCONNECT_TIMEOUT", "connect_timeout"},
	{"PGSSLMODE", "sslmode"},
	{"PGSSLKEY", "sslkey"},
	{"PGSSLCERT", "sslcert"},
	{"PGSSLCERTMODE", "sslcertmode"},
	{"PGSSLSNI", "sslsni"},
	{"PGSSLROOTCERT", "sslrootcert"},
	{"PGSSLPASSWORD", "sslpassword"},
	{"PGSSLNEGOTIATION", "sslnegotiation"},
	{"PGTARGETSESSIONATTRS", "target_session_attrs"},
	{"PGSERVICE", "service"},
	{"PGSERVICEFILE", "servicefile"},
	{"PGTZ", "timezone"},
	{"PGOPTIONS", "options"},
	{"PGMINPROTOCOLVERSION", "min_protocol_version"},
	{"PGMAXPROTOCOLVERSION", "max_protocol_version"},
	{"PGCHANNELBINDING", "channel_binding"},
	{"PGREQUIREAUTH", "require_auth"},
}

// runtimeMasks are keys that pgconn turns into server run-time parameters;
// when neither the URL nor getenv sets them they are written empty (to mask the
// process environment) and the empty parameter is removed after parsing.
var runtimeMasks = []string{"application_name", "timezone", "options"}

// secretKeys are query parameters that never appear in a redacted URL.
var secretKeys = map[string]bool{"password": true, "sslpassword": true}

// ParseTarget validates a postgres:// or postgresql:// URL without connecting.
//
// Precedence is libpq's: URL query parameters, then the URL's user, password,
// host, port and path, then the PG* variables read through getenv, then
// defaults (sslmode "prefer", as libpq). pgconn.ParseConfig also reads the
// process environment on its own; to make getenv the only source, every key
// pgconn reads from the environment is written explicitly into the keyword/value
// string handed to pgconn, with the value from the URL or getenv or a neutral
// value equal to pgconn's default (home-directory defaults such as ~/.pgpass are
// resolved from getenv("HOME")). The one exception is PGSERVICE, which cannot
// be masked by an explicit empty value: if the real environment names a service
// that getenv does not, pgconn still reads that service, but every key set here
// overrides it.
//
// ParseTarget reads the pass file and TLS files it names (as libpq does at
// connect time) but never opens a network connection. Errors wrap
// dialect.ErrBadTarget and never contain the password.
func (Dialect) ParseTarget(raw string, getenv func(string) string) (*dialect.Location, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	u, err := dialect.ParseServerURL(raw, "postgres", "postgresql")
	if err != nil {
		return nil, err
	}
	settings, query, err := urlSettings(u, getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := connConfig(settings, secretsOf(u, settings), getenv("HOME"))
	if err != nil {
		return nil, err
	}
	sslmode := settings["sslmode"]
	if sslmode == "" {
		sslmode = "prefer"
	}
	db := cfg.Database
	if db == "" {
		db = cfg.User // the server's default, as libpq
	}
	return &dialect.Location{
		Dialect:  "postgres",
		Redacted: redact(u.Scheme, cfg, query, sslmode),
		Database: db,
		Identity: identity(cfg, db),
		Conn:     cfg,
		Local:    local(cfg),
	}, nil
}

// urlSettings gathers the libpq keywords u and getenv set, in libpq's
// precedence (query parameters, then the URL's user, password, host, port
// and database, then the PG* variables), and returns them with u's query.
// It checks the host, the parameter names and the port.
func urlSettings(u *url.URL, getenv func(string) string) (map[string]string, url.Values, error) {
	settings := map[string]string{}
	for _, ek := range envKeys {
		if v := getenv(ek.env); v != "" {
			settings[ek.key] = v
		}
	}
	if u.User != nil {
		if name := u.User.Username(); name != "" {
			settings["user"] = name
		}
		if pw, ok := u.User.Password(); ok {
			settings["password"] = pw
		}
	}
	if err := hostSettings(u, settings); err != nil {
		return nil, nil, err
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		settings["dbname"] = db
	}
	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: postgres: malformed query string", dialect.ErrBadTarget)
	}
	for k, vs := range query {
		if !validKey(k) {
			return nil, nil, fmt.Errorf("%w: postgres: invalid parameter name %q", dialect.ErrBadTarget, k)
		}
		if k == "database" {
			k = "dbname"
		}
		settings[k] = vs[len(vs)-1]
	}
	if p := settings["port"]; p != "" {
		if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
			return nil, nil, fmt.Errorf("%w: postgres: invalid port: want a number from 1 to 65535", dialect.ErrBadTarget)
		}
	}
	return settings, query, nil
}

// hostSettings sets host and port in settings from u's authority: one
// host, an IPv6 address valid.
func hostSettings(u *url.URL, settings map[string]string) error {
	if u.Host == "" {
		return nil
	}
	if strings.Contains(u.Host, ",") {
		return fmt.Errorf("%w: postgres: multiple hosts are not supported", dialect.ErrBadTarget)
	}
	host, port := u.Hostname(), u.Port()
	if strings.Contains(host, ":") {
		if _, err := netip.ParseAddr(host); err != nil {
			return fmt.Errorf("%w: postgres: invalid IPv6 host", dialect.ErrBadTarget)
		}
	}
	if host != "" {
		settings["host"] = host
	}
	if port != "" {
		settings["port"] = port
	}
	return nil
}

// secretsOf is what an error must never show: the password and the
// sslpassword in settings, and the password as typed in u.
func secretsOf(u *url.URL, settings map[string]string) []string {
	secrets := []string{settings["password"], settings["sslpassword"]}
	if u.User != nil {
		if _, raw, ok := strings.Cut(u.User.String(), ":"); ok {
			secrets = append(secrets, raw)
		}
	}
	return secrets
}

// connConfig parses settings, with every key pgconn would read from the
// process environment filled in (applyDefaults, files under home), into
// pgx's configuration, and sets rightsize's defaults: the cached-statement
// query mode and the cache sizes, unless settings choose them, and
// tuneConfig's. Errors have secrets scrubbed.
func connConfig(settings map[string]string, secrets []string, home string) (*pgx.ConnConfig, error) {
	masked := applyDefaults(settings, home)
	cfg, err := pgx.ParseConfig(keywordDSN(settings))
	if err != nil {
		return nil, fmt.Errorf("%w: postgres: %s", dialect.ErrBadTarget, dialect.Scrub(err.Error(), secrets...))
	}
	if !strings.HasPrefix(cfg.Host, "/") && !validHost(cfg.Host) {
		return nil, fmt.Errorf("%w: postgres: invalid host name", dialect.ErrBadTarget)
	}
	for _, k := range masked {
		if cfg.RuntimeParams[k] == "" {
			delete(cfg.RuntimeParams, k)
		}
	}
	if _, ok := settings["default_query_exec_mode"]; !ok {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	}
	sizeCaches(cfg, settings)
	tuneConfig(cfg)
	return cfg, nil
}

// local is where the server listens when it is on this host: its Unix
// socket (libpq's DIR/.s.PGSQL.PORT) or a loopback address.
func local(cfg *pgx.ConnConfig) dialect.Endpoint {
	if strings.HasPrefix(cfg.Host, "/") {
		return dialect.Endpoint{Network: "unix", Address: fmt.Sprintf("%s/.s.PGSQL.%d", strings.TrimSuffix(cfg.Host, "/"), cfg.Port)}
	}
	return dialect.LocalTCP(cfg.Host, int(cfg.Port))
}

// identity is the target's dialect.Location.Identity: the server (a TCP
// host by dialect.HostKey, or a Unix-domain socket's directory), port,
// database and user.
func identity(cfg *pgx.ConnConfig, db string) string {
	host := cfg.Host
	if !strings.HasPrefix(host, "/") {
		host = dialect.HostKey(host)
	}
	return fmt.Sprintf("postgres host=%q port=%d dbname=%q user=%q", host, cfg.Port, db, cfg.User)
}

// Statement caches. The workloads' statements are named prepared statements
// (Conn.Prepare), outside pgx's caches; these hold only the ad-hoc statements
// of setup, loading and checks, a few dozen texts. pgx's default, two caches
// of 512 entries each, preallocates about 54 KB per connection: with 1,000
// virtual users, 54 MB and more than half of the generator's live heap
// (measured in the PostgreSQL soak). A statement_cache_capacity or
// description_cache_capacity in the target URL is kept as given.
const statementCacheCapacity = 32

// sizeCaches sets the statement cache to statementCacheCapacity and the
// description cache to nothing (it serves only default_query_exec_mode
// cache_describe, which then keeps the statement cache's size), each unless
// the target sets it.
func sizeCaches(cfg *pgx.ConnConfig, settings map[string]string) {
	if _, ok := settings["statement_cache_capacity"]; !ok {
		cfg.StatementCacheCapacity = statementCacheCapacity
	}
	if _, ok := settings["description_cache_capacity"]; !ok {
		cfg.DescriptionCacheCapacity = 0
		if cfg.DefaultQueryExecMode == pgx.QueryExecModeCacheDescribe {
			cfg.DescriptionCacheCapacity = statementCacheCapacity
		}
	}
}

// applyDefaults fills in every key pgconn would otherwise take from the
// process environment and returns the run-time parameter keys it masked.
func applyDefaults(settings map[string]string, home string) []string {
	var masked []string
	set := func(k, v string) {
		if _, ok := settings[k]; !ok {
			settings[k] = v
		}
	}
	for _, k := range runtimeMasks {
		if _, ok := settings[k]; !ok {
			settings[k] = ""
			masked = append(masked, k)
		}
	}
	set("sslmode", "prefer")
	set("sslcertmode", "allow")
	set("sslsni", "1")
	set("target_session_attrs", "any")
	set("connect_timeout", "0")
	var passfile, servicefile, sslcert, sslkey, sslrootcert string
	if home != "" {
		passfile = filepath.Join(home, ".pgpass")
		servicefile = filepath.Join(home, ".pg_service.conf")
		c, k := filepath.Join(home, ".postgresql", "postgresql.crt"), filepath.Join(home, ".postgresql", "postgresql.key")
		if fileExists(c) && fileExists(k) {
			sslcert, sslkey = c, k
		}
		if r := filepath.Join(home, ".postgresql", "root.crt"); fileExists(r) {
			sslrootcert = r
		}
	}
	set("passfile", passfile)
	set("servicefile", servicefile)
	set("sslcert", sslcert)
	set("sslkey", sslkey)
	set("sslrootcert", sslrootcert)
	for _, ek := range envKeys {
		if ek.key == "service" {
			continue // an empty service name is an error, see ParseTarget
		}
		set(ek.key, "")
	}
	return masked
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// validKey reports whether k can be written unquoted as a libpq keyword.
func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// validHost reports whether h is a plausible DNS name or IP address.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	for _, r := range h {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '.' && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

// keywordDSN renders settings as a libpq keyword/value string with every value
// quoted, in a stable order.
func keywordDSN(settings map[string]string) string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteString("='")
		b.WriteString(kwEscape(settings[k]))
		b.WriteByte('\'')
	}
	return b.String()
}

func kwEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

// redact builds the printable URL from the effective settings: no password,
// no sslpassword, sslmode always shown.
func redact(scheme string, cfg *pgx.ConnConfig, query url.Values, sslmode string) string {
	q := url.Values{}
	for k, vs := range query {
		if !secretKeys[k] {
			q[k] = vs
		}
	}
	q.Set("sslmode", sslmode)
	r := url.URL{Scheme: scheme, Path: "/" + cfg.Database}
	if cfg.User != "" {
		r.User = url.User(cfg.User)
	}
	if strings.HasPrefix(cfg.Host, "/") {
		q.Set("host", cfg.Host) // Unix-domain socket directory
		if cfg.Port != 5432 {
			q.Set("port", strconv.Itoa(int(cfg.Port)))
		}
	} else {
		r.Host = net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	}
	r.RawQuery = q.Encode()
	return r.String()
}

// configOf returns the target's pgx configuration, checking its type.
func configOf(t *dialect.Location) (*pgx.ConnConfig, error) {
	return dialect.ConnOf[pgx.ConnConfig](t, "postgres")
}
