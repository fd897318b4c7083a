package testenv

import (
	"context"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/workload"
)

// Open parses args as w's flags, validates them and opens w on rawURL, as
// the command line does; the instance is closed when the test ends.
func Open(t testing.TB, w workload.Workload, rawURL string, args ...string) workload.Instance {
	t.Helper()
	fs := pflag.NewFlagSet(w.Meta().Name, pflag.ContinueOnError)
	w.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	tg, err := w.ParseTarget(rawURL, workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := tg.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}
