package testenv

import (
	"strings"
	"testing"
)

func TestDatabaseName(t *testing.T) {
	long := strings.Repeat("TestSomething/With Spaces-and-Ünïcode", 5)
	a, b := DatabaseName(long), DatabaseName(long)
	if a == b {
		t.Errorf("names not unique: %q", a)
	}
	if len(a) > 63 || !strings.HasPrefix(a, "rs_") {
		t.Errorf("DatabaseName = %q (%d bytes)", a, len(a))
	}
	for _, r := range a {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			t.Fatalf("DatabaseName = %q has %q", a, r)
		}
	}
}
