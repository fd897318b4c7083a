package exitcode_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rightsize/rightsize/internal/exitcode"
)

func TestOf(t *testing.T) {
	errBad := exitcode.New("bad option", exitcode.Usage)
	stopped := exitcode.New("interrupted", exitcode.Interrupted)
	plain := errors.New("connection refused")
	for _, tc := range []struct {
		name string
		err  error
		want exitcode.Code
	}{
		{"nil", nil, exitcode.OK},
		{"plain: the default", plain, exitcode.Failure},
		{"a wrapped sentinel", fmt.Errorf("--time: %w", errBad), exitcode.Usage},
		{"marked", exitcode.With(plain, exitcode.Usage), exitcode.Usage},
		{"marked, wrapped", fmt.Errorf("prepare: %w", exitcode.With(plain, exitcode.Failure)), exitcode.Failure},
		{"joined: usage over failure", errors.Join(exitcode.With(plain, exitcode.Failure), errBad), exitcode.Usage},
		{"joined: interrupted over usage", errors.Join(errBad, fmt.Errorf("run: %w", stopped)), exitcode.Interrupted},
	} {
		if got := exitcode.Of(tc.err, exitcode.Failure); got != tc.want {
			t.Errorf("%s: Of = %d, want %d", tc.name, got, tc.want)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", errBad), errBad) {
		t.Error("errors.Is does not find a wrapped sentinel")
	}
	if exitcode.Of(plain, exitcode.Usage) != exitcode.Usage {
		t.Error("the default is not used for an unmarked error")
	}
	if exitcode.With(nil, exitcode.Usage) != nil {
		t.Error("With(nil) is not nil")
	}
}
