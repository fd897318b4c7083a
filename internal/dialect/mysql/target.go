package mysql

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/dialect"
)

// tcpAddress is u's host:port, 127.0.0.1 and 3306 by default, validated.
func tcpAddress(u *url.URL) (string, error) {
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if !validHost(host) {
		return "", fmt.Errorf("%w: mysql: invalid host name", dialect.ErrBadTarget)
	}
	if port == "" {
		port = "3306"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("%w: mysql: invalid port: want a number from 1 to 65535", dialect.ErrBadTarget)
	}
	return net.JoinHostPort(host, port), nil
}

// ParseTarget validates a mysql:// (or mariadb://) URL without connecting:
//
//	mysql://user:password@host:port/database?tls=preferred&timeout=5s
//
// The host defaults to 127.0.0.1 and the port to 3306; the query parameter
// socket=/path selects a Unix-domain socket instead. Other query parameters
// are go-sql-driver/mysql DSN parameters. tls defaults to "preferred" (TLS when
// the server offers it, without certificate verification, as the mysql client's
// --ssl-mode=PREFERRED). interpolateParams is always false: statements are
// prepared on the server. getenv is not used: the MySQL client's MYSQL_PWD and
// friends are deliberately ignored.
//
// Errors wrap dialect.ErrBadTarget and never contain the password.
func (Dialect) ParseTarget(raw string, _ func(string) string) (*dialect.Location, error) {
	u, err := dialect.ParseServerURL(raw, "mysql", "mariadb")
	if err != nil {
		return nil, err
	}
	var password string
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		password, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(cfg.DBName, "/") {
		return nil, fmt.Errorf("%w: mysql: database name must not contain '/'", dialect.ErrBadTarget)
	}
	if strings.Contains(u.Host, ",") {
		return nil, fmt.Errorf("%w: mysql: multiple hosts are not supported", dialect.ErrBadTarget)
	}
	addr, err := tcpAddress(u)
	if err != nil {
		return nil, err
	}
	cfg.Net, cfg.Addr = "tcp", addr

	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("%w: mysql: malformed query string", dialect.ErrBadTarget)
	}
	if s := query.Get("socket"); s != "" {
		cfg.Net, cfg.Addr = "unix", s
	}
	query.Del("socket")
	if query.Get("tls") == "" {
		query.Set("tls", "preferred")
	}
	query.Del("interpolateParams")

	// The driver parses its own parameters (and validates them) from a DSN.
	// The password is set afterwards so that it never enters a string that an
	// error could quote.
	dsn := cfg.FormatDSN()
	// The DSN's parameters follow the "?" after its last "/" (a database
	// name has none): a "?" in the user name is not one of them.
	sep := "?"
	if i := strings.LastIndex(dsn, "/"); strings.Contains(dsn[i+1:], "?") {
		sep = "&"
	}
	parsed, err := mysql.ParseDSN(dsn + sep + query.Encode())
	if err != nil {
		return nil, fmt.Errorf("%w: mysql: %s", dialect.ErrBadTarget, dialect.Scrub(err.Error(), password))
	}
	parsed.Passwd = password
	parsed.InterpolateParams = false
	parsed.Logger = quietLogger{}

	red := url.URL{Scheme: u.Scheme, Host: parsed.Addr, Path: "/" + parsed.DBName}
	if parsed.User != "" {
		red.User = url.User(parsed.User)
	}
	if parsed.Net == "unix" {
		red.Host = ""
		query.Set("socket", parsed.Addr)
	}
	red.RawQuery = query.Encode()
	return &dialect.Location{
		Dialect:  "mysql",
		Redacted: red.String(),
		Database: parsed.DBName,
		Identity: identity(parsed),
		Conn:     parsed,
		Local:    local(parsed),
	}, nil
}

// local is where the server listens when it is on this host: its Unix
// socket or a loopback address.
func local(cfg *mysql.Config) dialect.Endpoint {
	if cfg.Net == "unix" {
		return dialect.Endpoint{Network: "unix", Address: cfg.Addr}
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return dialect.Endpoint{}
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return dialect.Endpoint{}
	}
	return dialect.LocalTCP(host, n)
}

// identity is the target's dialect.Location.Identity: the server (a TCP host
// by dialect.HostKey and its port, or a Unix-domain socket), database and
// user.
func identity(cfg *mysql.Config) string {
	addr := cfg.Addr
	if cfg.Net == "tcp" {
		if host, port, err := net.SplitHostPort(addr); err == nil {
			addr = net.JoinHostPort(dialect.HostKey(host), port)
		}
	}
	return fmt.Sprintf("mysql %s %q database=%q user=%q", cfg.Net, addr, cfg.DBName, cfg.User)
}

// validHost reports whether h is a plausible DNS name or IP address.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	for _, r := range h {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '.' && r != '-' && r != '_' {
			return false
		}
	}
	return h != ""
}

// quietLogger drops the driver's log lines: nothing below cmd/rightsize
// writes to stderr, and every problem it logs also comes back as an error.
type quietLogger struct{}

func (quietLogger) Print(...any) {}

// configOf returns the target's driver configuration, checking its type.
func configOf(t *dialect.Location) (*mysql.Config, error) {
	return dialect.ConnOf[mysql.Config](t, "mysql")
}
