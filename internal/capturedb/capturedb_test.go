package capturedb

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
)

// TestBuildCatalog: a column alone in a primary or unique key is unique;
// one of a composite key is not; the primary key's columns are in order.
func TestBuildCatalog(t *testing.T) {
	cols := []capture.Column{{Name: "id"}, {Name: "email"}, {Name: "a"}, {Name: "b"}}
	tables := []string{"users", "users", "pairs", "pairs"}
	keys := []keyCol{
		{"users", "users_pkey", "id", "PRIMARY KEY"},
		{"users", "users_email_key", "email", "UNIQUE"},
		{"pairs", "pairs_pkey", "a", "PRIMARY KEY"},
		{"pairs", "pairs_pkey", "b", "PRIMARY KEY"},
		{"gone", "gone_pkey", "x", "PRIMARY KEY"},
	}
	cat := buildCatalog(cols, tables, keys)
	if len(cat.Tables) != 2 {
		t.Fatalf("%d tables, want 2", len(cat.Tables))
	}
	u, p := cat.Tables[0], cat.Tables[1]
	if !u.Columns[0].Unique || !u.Columns[1].Unique || len(u.Key) != 1 || u.Key[0] != "id" {
		t.Errorf("users: %+v", u)
	}
	if p.Columns[0].Unique || p.Columns[1].Unique || len(p.Key) != 2 || p.Key[1] != "b" {
		t.Errorf("pairs: %+v", p)
	}
}

// TestDeadlineReaderEndsTheLog: a log read past its deadline ends there,
// as if the file ended, and says so; with no deadline it reads to the end.
func TestDeadlineReaderEndsTheLog(t *testing.T) {
	r := &deadlineReader{r: strings.NewReader(strings.Repeat("x", 1<<16)), until: time.Now().Add(-time.Second)}
	if b, err := io.ReadAll(r); len(b) != 0 || err != nil || !r.cut {
		t.Errorf("past its deadline: read %d bytes, %v, cut %v; want 0, nil, true", len(b), err, r.cut)
	}
	r = &deadlineReader{r: strings.NewReader(strings.Repeat("x", 1<<16))}
	if b, err := io.ReadAll(r); len(b) != 1<<16 || err != nil || r.cut || r.n != 1<<16 {
		t.Errorf("no deadline: read %d bytes, %v, cut %v", len(b), err, r.cut)
	}
}
