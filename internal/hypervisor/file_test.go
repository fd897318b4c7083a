package hypervisor

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// TestReadFileExitCodes: a vCPU count the file contradicts is a usage
// error (exit 2); a file that is not there, or not an export, is not.
func TestReadFileExitCodes(t *testing.T) {
	path := filepath.Join("testdata", "esxtop-ready.csv")
	s, err := ReadFile(path, "esxtop", "DB01", 0)
	if err != nil || s.VCPUs != 4 {
		t.Fatalf("ReadFile: %v, %v", s, err)
	}
	_, err = ReadFile(path, "esxtop", "DB01", 8)
	if !errors.Is(err, ErrVCPUs) || exitcode.Of(err, exitcode.Failure) != exitcode.Usage || !strings.HasPrefix(err.Error(), "import: "+path+": ") {
		t.Errorf("--vcpus 8: %v (exit %d), want a usage error naming the file", err, exitcode.Of(err, exitcode.Failure))
	}
	for _, bad := range []string{filepath.Join(t.TempDir(), "none.csv"), filepath.Join("testdata", "esxtop-malformed.csv")} {
		_, err := ReadFile(bad, "esxtop", "DB01", 0)
		if err == nil || exitcode.Of(err, exitcode.Failure) != exitcode.Failure {
			t.Errorf("%s: %v, want an error carrying no usage code", bad, err)
		}
	}
	if _, err := ReadFile(path, "csv", "DB01", 0); err == nil {
		t.Errorf("esxtop's file read as csv: no error")
	}
}
