package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
)

// Where Debian installs the servers.
const (
	pgBin        = "/usr/lib/postgresql/15/bin"
	mariadbd     = "/usr/sbin/mariadbd"
	mariaInstall = "/usr/bin/mariadb-install-db"
)

// startTimeout bounds a server's start (initdb and install-db included) and
// stopTimeout its shutdown before it is killed.
const (
	startTimeout = 90 * time.Second
	stopTimeout  = 60 * time.Second
)

// Server is one private database server, a child process of the test
// binary running as its own OS user (postgres or mysql) on a free loopback
// port, its files in a temporary directory. It dies with the test binary
// (Pdeathsig). Tests that need settings the shared servers do not have
// (pg_stat_statements, performance_schema) or that restart, stall and cut
// a server (internal/chaos) start one; the shared servers are never
// reconfigured. Its methods are safe for concurrent use.
type Server struct {
	Kind string // "postgres" or "mariadb"
	Dir  string // owned by the server's OS user
	Port int

	cred    *syscall.Credential
	argv    []string
	stopSig syscall.Signal // PostgreSQL: SIGINT (fast shutdown); MariaDB: SIGTERM
	dieSig  syscall.Signal // sent if the test binary dies first
	logPath string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
	// readyAt is when the connection attempt that found the server accepting
	// connections again began; downUntil is when the one before it, which
	// failed, ended: the server started accepting between the two.
	readyAt, downUntil time.Time
}

// ServerUnavailable fails the test under CI=true and skips it elsewhere,
// as a missing shared server does.
func ServerUnavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: a server that cannot be started is a failure)", args...)
	}
	t.Skipf(format+" (set CI=true to make this a failure)", args...)
}

// PrivatePostgres starts a private PostgreSQL cluster for the test (see
// StartPostgres; conf are extra settings, "name=value"), stopped and
// removed when the test ends.
func PrivatePostgres(t testing.TB, conf ...string) *Server {
	t.Helper()
	return private(t, "PostgreSQL", func() (*Server, error) { return StartPostgres(conf...) })
}

// PrivateMariaDB starts a private MariaDB server for the test (see
// StartMariaDB; args are extra mariadbd options, "--name=value"), stopped
// and removed when the test ends.
func PrivateMariaDB(t testing.TB, args ...string) *Server {
	t.Helper()
	return private(t, "MariaDB", func() (*Server, error) { return StartMariaDB(args...) })
}

// private starts a server for the test, stopped when it ends; one that
// cannot start is ServerUnavailable.
func private(t testing.TB, product string, start func() (*Server, error)) *Server {
	t.Helper()
	s, err := start()
	if err != nil {
		ServerUnavailable(t, "private %s: %v", product, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stopping the private %s: %v", product, err)
		}
	})
	return s
}

// ownedDir makes a new directory under the system's temporary directory,
// owned by the OS user name.
func ownedDir(prefix, owner string) (string, *syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return "", nil, errors.New("the private servers run as their own OS users: the tests must run as root")
	}
	u, err := user.Lookup(owner)
	if err != nil {
		return "", nil, err
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		return "", nil, err
	}
	return dir, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// runAs runs a setup command as cred, returning its output in the error.
func runAs(cred *syscall.Credential, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	cmd.Env = []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", filepath.Base(name), err, out)
	}
	return nil
}

// StartPostgres initialises a cluster (trust authentication, fsync off)
// and starts it; conf are extra settings ("shared_preload_libraries=
// pg_stat_statements"), each given as -c. The caller stops it (Close).
func StartPostgres(conf ...string) (*Server, error) {
	s, data, err := newServer("postgres", filepath.Join(pgBin, "postgres"), "rightsize-pg-", "postgres")
	if err != nil {
		return nil, err
	}
	if err := runAs(s.cred, filepath.Join(pgBin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return nil, err
	}
	s.argv = []string{filepath.Join(pgBin, "postgres"), "-D", data, "-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + s.Dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=1100", "-c", "shared_buffers=64MB", "-c", "logging_collector=off",
		"-c", "log_min_messages=warning", "-c", "log_min_error_statement=panic"}
	for _, c := range conf {
		s.argv = append(s.argv, "-c", c)
	}
	s.stopSig, s.dieSig = syscall.SIGINT, syscall.SIGQUIT
	return s, s.Start()
}

// StartMariaDB creates a data directory (root with an empty password,
// normal authentication) and starts mariadbd; args are extra options
// ("--performance-schema=ON"). The caller stops it (Close).
func StartMariaDB(args ...string) (*Server, error) {
	s, data, err := newServer("mariadb", mariadbd, "rightsize-mariadb-", "mysql")
	if err != nil {
		return nil, err
	}
	opts := []string{"--no-defaults", "--datadir=" + data, "--innodb-log-file-size=16M",
		"--innodb-buffer-pool-size=64M", "--skip-name-resolve"}
	if err := runAs(s.cred, mariaInstall, append(opts, "--auth-root-authentication-method=normal", "--skip-test-db")...); err != nil {
		return nil, err
	}
	s.argv = append(append(append([]string{mariadbd}, opts...), "--port="+strconv.Itoa(s.Port), "--bind-address=127.0.0.1",
		"--socket="+filepath.Join(s.Dir, "mysqld.sock"), "--pid-file="+filepath.Join(s.Dir, "mysqld.pid"),
		"--innodb-flush-log-at-trx-commit=0", "--max-connections=1100", "--innodb-buffer-pool-dump-at-shutdown=0",
		"--innodb-buffer-pool-load-at-startup=0", "--log-warnings=1"), args...)
	s.stopSig, s.dieSig = syscall.SIGTERM, syscall.SIGKILL
	return s, s.Start()
}

// newServer is a server of kind not yet started, once its program bin is
// found: a new directory (prefix) owned by the OS user owner, with its log
// in it, and a free port; data is the data directory to create in it.
func newServer(kind, bin, prefix, owner string) (s *Server, data string, err error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, "", err
	}
	dir, cred, err := ownedDir(prefix, owner)
	if err != nil {
		return nil, "", err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	s = &Server{Kind: kind, Dir: dir, Port: port, cred: cred, logPath: filepath.Join(dir, "server.log")}
	return s, filepath.Join(dir, "data"), nil
}

// AdminURL is the URL of database db on the server as its superuser.
func (s *Server) AdminURL(db string) string {
	if s.Kind == "postgres" {
		return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
	}
	return fmt.Sprintf("mysql://root@127.0.0.1:%d/%s", s.Port, db)
}

// URLVia is the URL of database db reached through the loopback port port
// (the server's own, or a proxy's).
func (s *Server) URLVia(port int, db string) string {
	u, _ := url.Parse(s.AdminURL(db))
	u.Host = "127.0.0.1:" + strconv.Itoa(port)
	return u.String()
}

// Start starts the server and waits until it accepts connections.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("%s already running", s.Kind)
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"}
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: s.dieSig}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited

	tg, d, err := dialectall.ForURL(s.AdminURL(s.defaultDB()), nil)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(startTimeout)
	s.downUntil = time.Now()
	for {
		select {
		case <-exited:
			s.cmd = nil
			return fmt.Errorf("%s exited while starting; its log:\n%s", s.Kind, s.LogTail())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		began := time.Now()
		c, err := d.Connect(ctx, tg)
		cancel()
		if err == nil {
			s.readyAt = began
			_ = c.Close()
			return nil
		}
		s.downUntil = time.Now()
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections within %v: %v; its log:\n%s", s.Kind, startTimeout, err, s.LogTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) defaultDB() string {
	if s.Kind == "postgres" {
		return "postgres"
	}
	return ""
}

// Stop shuts the server down (PostgreSQL's fast shutdown, mariadbd's
// SIGTERM) and waits until it has exited, killing it after stopTimeout.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	defer func() { s.cmd = nil }()
	if err := s.cmd.Process.Signal(s.stopSig); err != nil {
		return err
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("%s did not stop within %v and was killed", s.Kind, stopTimeout)
	}
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	err := s.Stop()
	return errors.Join(err, os.RemoveAll(s.Dir))
}

// RestartTimes are the moments of a restart.
type RestartTimes struct {
	Stopping  time.Time // its shutdown began
	Exited    time.Time // its process had exited
	DownUntil time.Time // it was last seen refusing connections
	ReadyAt   time.Time // it was seen accepting them again (the attempt's start)
}

// Restart stops the server, leaves it down for down, starts it again and
// returns when it accepts connections again.
func (s *Server) Restart(down time.Duration) (RestartTimes, error) {
	rt := RestartTimes{Stopping: time.Now()}
	if err := s.Stop(); err != nil {
		return rt, err
	}
	rt.Exited = time.Now()
	time.Sleep(down)
	if err := s.Start(); err != nil {
		return rt, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rt.DownUntil, rt.ReadyAt = s.downUntil, s.readyAt
	return rt, nil
}

// Running reports whether the server process is up.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

// EnsureRunning starts the server if an earlier test left it stopped.
func (s *Server) EnsureRunning(t testing.TB) {
	t.Helper()
	if !s.Running() {
		if err := s.Start(); err != nil {
			t.Fatalf("restarting the private %s: %v", s.Kind, err)
		}
	}
}

// LogTail returns the end of the server's log.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// FreshDB creates a database of its own for the test on the server,
// dropped when the test ends, and returns its name.
func (s *Server) FreshDB(t testing.TB) string {
	t.Helper()
	return s.NamedDB(t, DatabaseName(t.Name()))
}

// NamedDB creates database name on the server, dropped when the test
// ends, and returns name.
func (s *Server) NamedDB(t testing.TB, name string) string {
	t.Helper()
	s.EnsureRunning(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg, d, err := dialectall.ForURL(s.AdminURL(name), nil)
	if err != nil {
		t.Fatal(err)
	}
	if created, err := d.EnsureDatabase(ctx, tg); err != nil || !created {
		t.Fatalf("create database %s: created %v, %v", name, created, err)
	}
	t.Cleanup(func() {
		if !s.Running() {
			return
		}
		drop := "DROP DATABASE IF EXISTS `" + name + "`"
		if s.Kind == "postgres" {
			drop = `DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`
		}
		s.Exec(t, "", drop)
	})
	return name
}

// Conn opens an admin connection to database db ("": the default one).
func (s *Server) Conn(t testing.TB, db string) dialect.Conn {
	t.Helper()
	if db == "" {
		db = s.defaultDB()
	}
	tg, d, err := dialectall.ForURL(s.AdminURL(db), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatalf("connect to the private %s: %v", s.Kind, err)
	}
	return c
}

// Exec runs statements on database db as the superuser.
func (s *Server) Exec(t testing.TB, db string, stmts ...string) {
	t.Helper()
	c := s.Conn(t, db)
	defer c.Close()
	for _, q := range stmts {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Count runs a query returning one integer on database db.
func (s *Server) Count(t testing.TB, db, q string, args ...any) int64 {
	t.Helper()
	c := s.Conn(t, db)
	defer c.Close()
	var n int64
	if err := c.QueryRow(context.Background(), q, args, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
