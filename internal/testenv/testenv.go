package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/mysql"
	"github.com/rightsize/rightsize/internal/dialect/postgres"
)

// Default base URLs, overridden by RIGHTSIZE_TEST_POSTGRES and RIGHTSIZE_TEST_MYSQL.
const (
	DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	DefaultMySQLURL    = "mysql://root@127.0.0.1:3306/"
)

// setupTimeout bounds reaching the server and creating or dropping a database.
const setupTimeout = 30 * time.Second

// PostgresURL returns the URL of a new, empty PostgreSQL database, dropped
// (WITH FORCE) in t.Cleanup. The URL keeps the base URL's credentials and
// parameters; only the database name differs. The databases --instances numbers from it
// (NAME_1 .. NAME_8) are dropped too.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return freshDatabase(t, postgres.Dialect{}, "RIGHTSIZE_TEST_POSTGRES", DefaultPostgresURL,
		func(name string) string { return `DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)` })
}

// MySQLURL returns the URL of a new, empty MySQL/MariaDB database, dropped in
// t.Cleanup.
func MySQLURL(t testing.TB) string {
	t.Helper()
	return freshDatabase(t, mysql.Dialect{}, "RIGHTSIZE_TEST_MYSQL", DefaultMySQLURL,
		func(name string) string { return "DROP DATABASE IF EXISTS `" + name + "`" })
}

// unavailable fails the test in CI and skips it elsewhere.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: a missing server is a failure)", args...)
	}
	t.Skipf(format+" (set CI=true to make this a failure)", args...)
}

func freshDatabase(t testing.TB, d dialect.Dialect, envName, def string, drop func(string) string) string {
	t.Helper()
	base := os.Getenv(envName)
	if base == "" {
		base = def
	}
	bt, err := d.ParseTarget(base, os.Getenv)
	if err != nil {
		t.Fatalf("testenv: %s: %v", envName, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	admin, err := d.Connect(ctx, bt)
	if err != nil {
		unavailable(t, "testenv: %s server at %s not reachable: %v", d.Name(), bt, err)
		return ""
	}
	defer admin.Close()

	name := DatabaseName(t.Name())
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("testenv: %s: %v", envName, err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	fresh := u.String()
	ft, err := d.ParseTarget(fresh, os.Getenv)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	created, err := d.EnsureDatabase(ctx, ft)
	if err != nil {
		t.Fatalf("testenv: create database %s: %v", name, err)
	}
	if !created {
		t.Fatalf("testenv: database %s already existed", name)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		c, err := d.Connect(ctx, bt)
		if err != nil {
			t.Errorf("testenv: drop database %s: %v", name, err)
			return
		}
		defer c.Close()
		// Also the databases --instances numbers from this one (NAME_1, ...).
		for i := 0; i <= maxNumbered; i++ {
			n := name
			if i > 0 {
				n = name + "_" + strconv.Itoa(i)
			}
			if _, err := c.Exec(ctx, drop(n)); err != nil {
				t.Errorf("testenv: drop database %s: %v", n, err)
			}
		}
	})
	return fresh
}

// maxNumbered is how many databases numbered from a fresh one (--instances)
// its cleanup drops.
const maxNumbered = 8

// DatabaseName returns a unique database name derived from a test name:
// "rs_", up to 40 lower-case letters, digits and underscores, and 16 random hex
// digits (at most 60 bytes, within both servers' 63- and 64-byte limits).
func DatabaseName(testName string) string {
	var b strings.Builder
	b.WriteString("rs_")
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 43 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails (Go 1.24+)
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(rnd[:]))
	return b.String()
}
