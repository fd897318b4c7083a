package cli

import (
	"context"
	"strings"
	"testing"
)

// A database's location given to noop or fileio (which take none, or a
// path) is refused with exit 2, and its password shows neither on stdout
// nor on stderr (issue 47: both echoed the whole URL).
func TestNoopFileioTargetPasswordNotEchoed(t *testing.T) {
	const secret = "secretpw"
	// Where a location taken for a path would be laid out (a 1 GiB file).
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"run", "noop", "--target", "postgres://u:" + secret + "@127.0.0.1/x", "--time", "1s"},
		{"run", "fileio", "--target", "postgres://u:" + secret + "@127.0.0.1/x", "--time", "1s"},
		{"run", "fileio", "--file", "mysql://root:" + secret + "@127.0.0.1:3306/db", "--time", "1s"},
		{"run", "fileio", "--target", "host=127.0.0.1 password=" + secret, "--time", "1s"},
		{"prepare", "fileio", "--target", "postgres://u:" + secret + "@127.0.0.1/x"},
		{"cleanup", "fileio", "--target", "postgres://u:" + secret + "@127.0.0.1/x"},
		{"prepare", "noop", "--target", "postgres://u:" + secret + "@127.0.0.1/x"},
	} {
		o := run(t, context.Background(), args...)
		if o.code != 2 {
			t.Errorf("%v: exit %d, want 2\nstderr: %s", args, o.code, o.stderr)
		}
		if strings.Contains(o.stdout+o.stderr, secret) {
			t.Errorf("%v: the password shows:\nstdout: %s\nstderr: %s", args, o.stdout, o.stderr)
		}
	}
}
