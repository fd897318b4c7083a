package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/dialecttest"
	"github.com/rightsize/rightsize/internal/dialect/mysql"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
)

// Hooks are the MySQL-specific parts of the conformance suite.
var Hooks = dialecttest.Hooks{
	SessionID: func(ctx context.Context, c dialect.Conn) (int64, error) {
		var id int64
		err := c.QueryRow(ctx, "SELECT CONNECTION_ID()", nil, &id)
		return id, err
	},
	Kill: func(ctx context.Context, admin dialect.Conn, id int64) error {
		_, err := admin.Exec(ctx, fmt.Sprintf("KILL %d", id))
		return err
	},
	SleepSQL: "SELECT SLEEP(10)",
}

func TestConformance(t *testing.T) {
	dialecttest.RunWith(t, mysql.Dialect{}, testenv.MySQLURL(t), Hooks)
}

func connect(t testing.TB, raw string) dialect.Conn {
	t.Helper()
	d := mysql.Dialect{}
	target, err := d.ParseTarget(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTLSInfo checks that Info agrees with the server's own view of the session.
func TestTLSInfo(t *testing.T) {
	c := connect(t, testenv.MySQLURL(t))
	info := c.Info()
	var name, cipher string
	if err := c.QueryRow(context.Background(), "SHOW SESSION STATUS LIKE 'Ssl_cipher'", nil, &name, &cipher); err != nil {
		t.Fatal(err)
	}
	if info.Encrypted != (cipher != "") {
		t.Errorf("Info().Encrypted = %v, Ssl_cipher = %q", info.Encrypted, cipher)
	}
	if info.Encrypted && !strings.HasPrefix(info.TLSVersion, "TLS 1.") {
		t.Errorf("TLSVersion = %q", info.TLSVersion)
	}
	t.Logf("%+v", info)
}

// TestServerProduct: Info names the product as the server's VERSION() and
// version_comment say it (MariaDB on the test server, MySQL otherwise), and
// keeps VERSION() as it is.
func TestServerProduct(t *testing.T) {
	c := connect(t, testenv.MySQLURL(t))
	var version string
	if err := c.QueryRow(context.Background(), "SELECT VERSION()", nil, &version); err != nil {
		t.Fatal(err)
	}
	want := "MySQL"
	if strings.Contains(strings.ToLower(version), "mariadb") {
		want = "MariaDB"
	}
	if info := c.Info(); info.ServerProduct != want || info.ServerVersion != version {
		t.Errorf("Server %q, ServerVersion %q; want %q, %q", info.ServerProduct, info.ServerVersion, want, version)
	}
}

// TestEnsureDatabase creates a database from a URL and finds it the second time.
func TestEnsureDatabase(t *testing.T) {
	raw := testenv.MySQLURL(t) // a fresh database, dropped at the end
	d := mysql.Dialect{}
	target, err := d.ParseTarget(strings.Replace(raw, "/rs_", "/rs_x", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, want := range []bool{true, false} {
		created, err := d.EnsureDatabase(ctx, target)
		if err != nil || created != want {
			t.Fatalf("EnsureDatabase #%d = %v, %v; want %v", i+1, created, err, want)
		}
	}
	c := connect(t, strings.Replace(raw, "/rs_", "/rs_x", 1))
	if _, err := c.Exec(ctx, "DROP DATABASE "+target.Database); err != nil {
		t.Fatal(err)
	}
}

func TestConnectErrorHasNoPassword(t *testing.T) {
	testenv.MySQLURL(t) // skips when there is no server
	d := mysql.Dialect{}
	const pw = "Sup3rSecretPW"
	for _, raw := range []string{
		"mysql://nobody_rs:" + pw + "@127.0.0.1:3306/nodb_rs",
		"mysql://nobody_rs:" + pw + "@127.0.0.1:1/nodb_rs",
	} {
		target, err := d.ParseTarget(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := d.Connect(ctx, target)
		cancel()
		if err == nil {
			c.Close()
			t.Fatalf("%s: connected", target)
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error contains the password: %v", err)
		}
		t.Logf("%s: %v (%v)", target, err, d.Classify(err))
		if got := d.Classify(err); raw[len(raw)-len("1/nodb_rs"):] == "1/nodb_rs" && got != errclass.Connection {
			t.Errorf("Classify(%v) = %v, want connection", err, got)
		}
	}
}

// connectWithin connects to raw with the target's connect timeout set to
// timeout, under a context whose own deadline is much later, and returns
// the error and how long it took.
func connectWithin(t *testing.T, raw string, timeout time.Duration) (error, time.Duration) {
	t.Helper()
	tg, err := mysql.Dialect{}.ParseTarget(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg.ConnectTimeout = timeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout+15*time.Second)
	defer cancel()
	start := time.Now()
	c, err := mysql.Dialect{}.Connect(ctx, tg)
	took := time.Since(start)
	if err == nil {
		c.Close()
		t.Fatalf("connected to %s", tg)
	}
	return err, took
}

// A mysql:// target on PostgreSQL's port (MySQL's protocol against a
// server that waits for the client to speak first) fails within the
// connect timeout with one message that says so, not "invalid connection"
// after PostgreSQL's authentication_timeout (60 s).
func TestConnectToPostgresPort(t *testing.T) {
	u, err := url.Parse(testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 2 * time.Second
	err, took := connectWithin(t, "mysql://root@"+u.Host+"/x", timeout)
	t.Logf("after %v: %v", took.Round(time.Millisecond), err)
	if took > timeout+time.Second {
		t.Errorf("failed after %v, want within the connect timeout (%v)", took, timeout)
	}
	msg := err.Error()
	for _, want := range []string{u.Host, "does not speak MySQL's protocol", "PostgreSQL", "2s"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message does not say %q: %s", want, msg)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the error does not wrap context.DeadlineExceeded: %v", err)
	}
}

// A server that accepts and says nothing is given up on after the
// target's connect timeout.
func TestConnectTimeoutSilentServer(t *testing.T) {
	addr := testenv.SilentServer(t)
	for _, timeout := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond} {
		err, took := connectWithin(t, "mysql://root@"+addr+"/x", timeout)
		if took < timeout-50*time.Millisecond || took > timeout+time.Second {
			t.Errorf("timeout %v: failed after %v", timeout, took)
		}
		if msg := err.Error(); !strings.Contains(msg, "no greeting within the connect timeout ("+timeout.String()+")") {
			t.Errorf("timeout %v: %s", timeout, msg)
		}
	}
	// EnsureDatabase's connection too, and a password never shows.
	tg, err := mysql.Dialect{}.ParseTarget("mysql://root:hunter2@"+addr+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	tg.ConnectTimeout = 500 * time.Millisecond
	start := time.Now()
	_, err = mysql.Dialect{}.EnsureDatabase(context.Background(), tg)
	if took := time.Since(start); err == nil || took > 1500*time.Millisecond || !strings.Contains(err.Error(), "no greeting within the connect timeout (500ms)") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("EnsureDatabase after %v: %v", took, err)
	}
}

// A server that speaks first but not MySQL's protocol (an SSH server's
// banner) is refused at once with a message that says so.
func TestConnectToAnotherProtocol(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			defer c.Close()
		}
	}()
	err, took := connectWithin(t, "mysql://root@"+ln.Addr().String()+"/x", 5*time.Second)
	if took > time.Second || !strings.Contains(err.Error(), "does not speak MySQL's protocol") {
		t.Errorf("after %v: %v", took, err)
	}
}

// TestTableExistsQualified: a name qualified by a database is looked up
// there, an unqualified one in the connection's current database.
func TestTableExistsQualified(t *testing.T) {
	c := connect(t, testenv.MySQLURL(t))
	ctx := context.Background()
	var db string
	if err := c.QueryRow(ctx, "SELECT DATABASE()", nil, &db); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE orders (id INT)"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{db + ".orders": true, "orders": true, db + ".items": false, "rs_no_such_db.orders": false} {
		if got, err := c.TableExists(ctx, name); got != want || err != nil {
			t.Errorf("TableExists(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
}
