package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// TestTopologyFromAFile: a YAML description is read; one that is not a
// host is a usage error (exit 2); a file that cannot be read, or no /sys
// for "auto", is not.
func TestTopologyFromAFile(t *testing.T) {
	h, err := Topology(filepath.Join("..", "topology", "testdata", "small-noht.yaml"), nil, "", "here")
	if err != nil || h.Name != "small-noht" || h.Cores() != 2 || h.Threads() != 2 {
		t.Fatalf("small-noht.yaml: %+v, %v", h, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("sockets: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Topology(bad, nil, "", "here"); err == nil || exitcode.Of(err, exitcode.Failure) != exitcode.Usage {
		t.Errorf("a description that is not a host: %v, want a usage error", err)
	}
	for _, arg := range []string{filepath.Join(t.TempDir(), "none.yaml"), "auto"} {
		_, err := Topology(arg, nil, "", "here")
		if err == nil || exitcode.Of(err, exitcode.Failure) != exitcode.Failure || !strings.HasPrefix(err.Error(), "host: ") {
			t.Errorf("%s: %v, want an error saying host: and carrying no usage code", arg, err)
		}
	}
}
