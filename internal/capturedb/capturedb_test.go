package capturedb

import (
	"testing"

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
