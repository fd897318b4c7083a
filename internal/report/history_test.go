package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rightsize/rightsize/internal/report"
)

// Issue 47 (10c): two servers on one host, listed with long labels and
// configurations, were cut to "127.0.0…" and "Postgre…" and could not be
// told apart. Each row keeps its target's host and port and its server's
// version whole enough to tell it from the others, and still fits a
// terminal.
func TestListingTellsServersOnOneHostApart(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	run := func(key, port, server string) report.ListedRun {
		return report.ListedRun{Key: key, Workload: "oltp_read_write", Label: "before the upgrade, at night",
			Config: "127.0.0.1:" + port, Started: at,
			Targets: []string{"postgres://postgres@127.0.0.1:" + port + "/rightsize_test?sslmode=disable"}, Servers: []string{server},
			Throughput: 12345.67, AvgMs: 1, P95Ms: 2, P99Ms: 3.21}
	}
	l := report.Listing{Catalog: "sqlite:/tmp/h.db", Runs: []report.ListedRun{
		run("20250301T120000Z-aaaaaa", "5432", "PostgreSQL 15.20"),
		run("20250301T120100Z-bbbbbb", "5433", "PostgreSQL 16.4"),
		run("20250301T120200Z-cccccc", "3306", "MariaDB 10.11.19"),
	}}
	out := listing(t, l)
	told(t, out)
	if !strings.Contains(out, "CONFIG: none written where it is the default") || strings.Contains(lineOf(out, "KEY "), "CONFIG") {
		t.Errorf("want the default configurations (the targets' host and port) left out, and said so")
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > report.ListWidth && !strings.HasPrefix(l, "catalog ") {
			t.Errorf("a row of %d columns: %q", n, l)
		}
	}
	// Labels and configurations at length: they are cut, the targets and
	// servers are still told apart.
	for i := range l.Runs {
		l.Runs[i].Label = "a label somebody wrote at some length to say what it was for"
		l.Runs[i].Config = "the configuration under test, named at length"
	}
	told(t, listing(t, l))
}

func listing(t *testing.T, l report.Listing) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteListing(&b, l); err != nil {
		t.Fatal(err)
	}
	t.Logf("history list:\n%s", b.String())
	return b.String()
}

// told fails unless each run's row of out has its target's host and port
// and its server's name and version.
func told(t *testing.T, out string) {
	t.Helper()
	for key, want := range map[string][]string{
		"20250301T120000Z-aaaaaa": {"127.0.0.1:5432", "PostgreSQL 15.20"},
		"20250301T120100Z-bbbbbb": {"127.0.0.1:5433", "PostgreSQL 16.4"},
		"20250301T120200Z-cccccc": {"127.0.0.1:3306", "MariaDB 10.11.19"},
	} {
		line := lineOf(out, key)
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("row of %s lacks %q: %q", key, w, line)
			}
		}
	}
}

// lineOf is the first line of out that contains s ("" when none does).
func lineOf(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
