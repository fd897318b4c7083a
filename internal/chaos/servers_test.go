package chaos

import (
	"context"
	"errors"
	"flag"
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
	"github.com/rightsize/rightsize/internal/testenv"
)

// full runs the issue's own figures instead of the scaled CI ones.
var full = flag.Bool("chaos.full", false, "run the fault-injection tests at the issue's full length (60 s runs, a 20 s stall, cuts every 10 s)")

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

// server is one private database server, a child process of the test binary
// running as its own OS user (postgres or mysql) on a free loopback port, its
// files in a temporary directory. It dies with the test binary (Pdeathsig).
// Its methods are safe for concurrent use.
type server struct {
	kind    string // "postgres" or "mariadb"
	dir     string // owned by the server's OS user
	port    int
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

var (
	pgOnce, myOnce sync.Once
	pgSrv, mySrv   *server
	pgErr, myErr   error
	baseDir        string // holds both servers' directories
	baseOnce       sync.Once
	baseErr        error
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range []*server{pgSrv, mySrv} {
		if s != nil {
			if err := s.stop(); err != nil {
				fmt.Fprintf(os.Stderr, "chaos: stopping the private %s: %v\n", s.kind, err)
			}
		}
	}
	if baseDir != "" {
		_ = os.RemoveAll(baseDir)
	}
	os.Exit(code)
}

// unavailable fails the test under CI=true and skips it elsewhere, as
// testenv does for a missing server.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: a server that cannot be started is a failure)", args...)
	}
	t.Skipf(format+" (set CI=true to make this a failure)", args...)
}

// long skips a fault-injection test under -short.
func long(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("fault injection runs for tens of seconds")
	}
	if os.Getenv("RIGHTSIZE_FAULTS") != "1" {
		// Their recovery deadlines (2 s after a restart, --time + 10 s after
		// a stall) were missed while other heavy tests shared the 2 cores,
		// so .ci/run runs them alone, after the others.
		t.Skip("fault injection runs with RIGHTSIZE_FAULTS=1 (.ci/run runs it alone after the other tests)")
	}
}

// postgresServer returns the package's private PostgreSQL cluster, started
// on first use.
func postgresServer(t testing.TB) *server {
	t.Helper()
	pgOnce.Do(func() { pgSrv, pgErr = startPostgres() })
	if pgErr != nil {
		unavailable(t, "chaos: private PostgreSQL: %v", pgErr)
	}
	return pgSrv
}

// mariadbServer returns the package's private MariaDB server, started on
// first use.
func mariadbServer(t testing.TB) *server {
	t.Helper()
	myOnce.Do(func() { mySrv, myErr = startMariaDB() })
	if myErr != nil {
		unavailable(t, "chaos: private MariaDB: %v", myErr)
	}
	return mySrv
}

// base returns the directory that holds the servers' directories: under the
// system's temporary directory, which the servers' OS users must be able to
// traverse.
func base() (string, error) {
	baseOnce.Do(func() {
		if os.Geteuid() != 0 {
			baseErr = errors.New("the private servers run as their own OS users: the tests must run as root")
			return
		}
		baseDir, baseErr = os.MkdirTemp("", "rightsize-chaos-")
		if baseErr == nil {
			baseErr = os.Chmod(baseDir, 0o755)
		}
	})
	return baseDir, baseErr
}

// ownedDir makes dir under the base directory, owned by the OS user name.
func ownedDir(name, owner string) (string, *syscall.Credential, error) {
	b, err := base()
	if err != nil {
		return "", nil, err
	}
	u, err := user.Lookup(owner)
	if err != nil {
		return "", nil, err
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	dir := filepath.Join(b, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
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

// startPostgres initialises a cluster (trust authentication, fsync off) and
// starts it.
func startPostgres() (*server, error) {
	if _, err := os.Stat(filepath.Join(pgBin, "postgres")); err != nil {
		return nil, err
	}
	dir, cred, err := ownedDir("pg", "postgres")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := runAs(cred, filepath.Join(pgBin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return nil, err
	}
	s := &server{
		kind: "postgres", dir: dir, port: port, cred: cred,
		argv: []string{filepath.Join(pgBin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
			"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir,
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=1100", "-c", "shared_buffers=64MB", "-c", "logging_collector=off",
			"-c", "log_min_messages=warning", "-c", "log_min_error_statement=panic"},
		stopSig: syscall.SIGINT, dieSig: syscall.SIGQUIT,
		logPath: filepath.Join(dir, "server.log"),
	}
	return s, s.start()
}

// startMariaDB creates a data directory (root with an empty password,
// normal authentication) and starts mariadbd.
func startMariaDB() (*server, error) {
	if _, err := os.Stat(mariadbd); err != nil {
		return nil, err
	}
	dir, cred, err := ownedDir("mariadb", "mysql")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	opts := []string{"--no-defaults", "--datadir=" + data, "--innodb-log-file-size=16M",
		"--innodb-buffer-pool-size=64M", "--skip-name-resolve"}
	if err := runAs(cred, mariaInstall, append(opts, "--auth-root-authentication-method=normal", "--skip-test-db")...); err != nil {
		return nil, err
	}
	s := &server{
		kind: "mariadb", dir: dir, port: port, cred: cred,
		argv: append(append([]string{mariadbd}, opts...), "--port="+strconv.Itoa(port), "--bind-address=127.0.0.1",
			"--socket="+filepath.Join(dir, "mysqld.sock"), "--pid-file="+filepath.Join(dir, "mysqld.pid"),
			"--innodb-flush-log-at-trx-commit=0", "--max-connections=1100", "--innodb-buffer-pool-dump-at-shutdown=0",
			"--innodb-buffer-pool-load-at-startup=0", "--log-warnings=1"),
		stopSig: syscall.SIGTERM, dieSig: syscall.SIGKILL,
		logPath: filepath.Join(dir, "server.log"),
	}
	return s, s.start()
}

// adminURL is the URL of database db on the server as its superuser.
func (s *server) adminURL(db string) string {
	if s.kind == "postgres" {
		return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
	}
	return fmt.Sprintf("mysql://root@127.0.0.1:%d/%s", s.port, db)
}

// urlVia is the URL of database db reached through the loopback port port
// (the server's own, or a proxy's).
func (s *server) urlVia(port int, db string) string {
	u, _ := url.Parse(s.adminURL(db))
	u.Host = "127.0.0.1:" + strconv.Itoa(port)
	return u.String()
}

// start starts the server and waits until it accepts connections.
func (s *server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("%s already running", s.kind)
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"}
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: s.dieSig}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited

	tg, d, err := dialectall.ForURL(s.adminURL(s.defaultDB()), nil)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(startTimeout)
	s.downUntil = time.Now()
	for {
		select {
		case <-exited:
			s.cmd = nil
			return fmt.Errorf("%s exited while starting; its log:\n%s", s.kind, s.logTail())
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
			return fmt.Errorf("%s did not accept connections within %v: %v; its log:\n%s", s.kind, startTimeout, err, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) defaultDB() string {
	if s.kind == "postgres" {
		return "postgres"
	}
	return ""
}

// stop shuts the server down (PostgreSQL's fast shutdown, mariadbd's
// SIGTERM) and waits until it has exited, killing it after stopTimeout.
func (s *server) stop() error {
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
		return fmt.Errorf("%s did not stop within %v and was killed", s.kind, stopTimeout)
	}
}

// restartTimes are the moments of a restart.
type restartTimes struct {
	stopping  time.Time // its shutdown began
	exited    time.Time // its process had exited
	downUntil time.Time // it was last seen refusing connections
	readyAt   time.Time // it was seen accepting them again (see server.readyAt)
}

// restart stops the server, leaves it down for down, starts it again and
// returns when it accepts connections again.
func (s *server) restart(down time.Duration) (restartTimes, error) {
	rt := restartTimes{stopping: time.Now()}
	if err := s.stop(); err != nil {
		return rt, err
	}
	rt.exited = time.Now()
	time.Sleep(down)
	if err := s.start(); err != nil {
		return rt, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rt.downUntil, rt.readyAt = s.downUntil, s.readyAt
	return rt, nil
}

// running reports whether the server process is up.
func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

// ensureRunning starts the server if an earlier test left it stopped.
func (s *server) ensureRunning(t testing.TB) {
	t.Helper()
	if !s.running() {
		if err := s.start(); err != nil {
			t.Fatalf("restarting the private %s: %v", s.kind, err)
		}
	}
}

// logTail returns the end of the server's log.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// freshDB creates a database of its own for the test on the server, dropped
// when the test ends, and returns its name.
func (s *server) freshDB(t testing.TB) string {
	t.Helper()
	s.ensureRunning(t)
	name := testenv.DatabaseName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg, d, err := dialectall.ForURL(s.adminURL(name), nil)
	if err != nil {
		t.Fatal(err)
	}
	if created, err := d.EnsureDatabase(ctx, tg); err != nil || !created {
		t.Fatalf("create database %s: created %v, %v", name, created, err)
	}
	t.Cleanup(func() {
		if !s.running() {
			return
		}
		drop := "DROP DATABASE IF EXISTS `" + name + "`"
		if s.kind == "postgres" {
			drop = `DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`
		}
		s.exec(t, "", drop)
	})
	return name
}

// conn opens an admin connection to database db ("": the default one).
func (s *server) conn(t testing.TB, db string) dialect.Conn {
	t.Helper()
	if db == "" {
		db = s.defaultDB()
	}
	tg, d, err := dialectall.ForURL(s.adminURL(db), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatalf("connect to the private %s: %v", s.kind, err)
	}
	return c
}

// exec runs statements on database db as the superuser.
func (s *server) exec(t testing.TB, db string, stmts ...string) {
	t.Helper()
	c := s.conn(t, db)
	defer c.Close()
	for _, q := range stmts {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// count runs a query returning one integer on database db.
func (s *server) count(t testing.TB, db, q string, args ...any) int64 {
	t.Helper()
	c := s.conn(t, db)
	defer c.Close()
	var n int64
	if err := c.QueryRow(context.Background(), q, args, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
