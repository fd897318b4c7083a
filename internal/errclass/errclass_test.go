package errclass_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"testing"

	"github.com/rightsize/rightsize/internal/errclass"
)

func every() []errclass.Class { return append([]errclass.Class{errclass.None}, errclass.All...) }

func TestStringParseRoundTrip(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[string]errclass.Class{}
	for _, c := range every() {
		s := c.String()
		if !snake.MatchString(s) {
			t.Errorf("Class(%d).String() = %q, want a snake_case name", c, s)
		}
		if prev, dup := seen[s]; dup {
			t.Errorf("classes %d and %d are both named %q", prev, c, s)
		}
		seen[s] = c
		got, ok := errclass.Parse(s)
		if !ok || got != c {
			t.Errorf("Parse(%q) = %v, %v; want %v, true", s, got, ok, c)
		}
	}
	// The names are part of the JSON output: they must not change.
	want := map[errclass.Class]string{
		errclass.None: "none", errclass.Serialization: "serialization", errclass.Deadlock: "deadlock",
		errclass.LockTimeout: "lock_timeout", errclass.Connection: "connection", errclass.Constraint: "constraint",
		errclass.Timeout: "timeout", errclass.Canceled: "canceled", errclass.Other: "other",
		errclass.Auth: "auth", errclass.Permission: "permission", errclass.Missing: "missing",
	}
	for c, n := range want {
		if c.String() != n {
			t.Errorf("%d.String() = %q, want %q", c, c.String(), n)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d classes, want %d", len(seen), len(want))
	}
}

func TestParseUnknown(t *testing.T) {
	for _, s := range []string{"", "Deadlock", "lock-timeout", "lock timeout", "cancelled", " other", "unknown"} {
		c, ok := errclass.Parse(s)
		if ok {
			t.Errorf("Parse(%q) = %v, true; want false", s, c)
		}
		if c != errclass.Other {
			t.Errorf("Parse(%q) = %v; want Other with false", s, c)
		}
	}
}

func TestOutOfRangeString(t *testing.T) {
	for _, c := range []errclass.Class{errclass.Missing + 1, 100, 255} {
		if got := c.String(); got != "other" {
			t.Errorf("Class(%d).String() = %q, want \"other\"", c, got)
		}
	}
}

func TestAll(t *testing.T) {
	seen := map[errclass.Class]bool{}
	for _, c := range errclass.All {
		if c == errclass.None {
			t.Errorf("All contains None")
		}
		if seen[c] {
			t.Errorf("All lists %v twice", c)
		}
		seen[c] = true
	}
	// Every class from None+1 to the last (Missing) is listed.
	for c := errclass.None + 1; c <= errclass.Missing; c++ {
		if !seen[c] {
			t.Errorf("All misses %v", c)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, c := range every() {
		want := c == errclass.Serialization || c == errclass.Deadlock
		if got := c.Retryable(); got != want {
			t.Errorf("%v.Retryable() = %v, want %v", c, got, want)
		}
	}
}

func TestHeals(t *testing.T) {
	for _, c := range every() {
		want := c != errclass.Auth && c != errclass.Permission && c != errclass.Missing
		if got := c.Heals(); got != want {
			t.Errorf("%v.Heals() = %v, want %v", c, got, want)
		}
	}
}

type wrapper struct{ err error }

func (w wrapper) Error() string { return "custom: " + w.err.Error() }
func (w wrapper) Unwrap() error { return w.err }

func TestGeneric(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dctx, dcancel := context.WithTimeout(context.Background(), 0)
	defer dcancel()
	<-dctx.Done()
	for _, tc := range []struct {
		name string
		err  error
		want errclass.Class
	}{
		{"nil", nil, errclass.None},
		{"Canceled", context.Canceled, errclass.Canceled},
		{"ctx.Err after cancel", ctx.Err(), errclass.Canceled},
		{"wrapped Canceled", fmt.Errorf("query: %w", context.Canceled), errclass.Canceled},
		{"doubly wrapped Canceled", fmt.Errorf("tx: %w", wrapper{fmt.Errorf("exec: %w", context.Canceled)}), errclass.Canceled},
		{"joined Canceled", errors.Join(io.EOF, context.Canceled), errclass.Canceled},
		{"DeadlineExceeded", context.DeadlineExceeded, errclass.Timeout},
		{"ctx.Err after deadline", dctx.Err(), errclass.Timeout},
		{"wrapped DeadlineExceeded", fmt.Errorf("query: %w", context.DeadlineExceeded), errclass.Timeout},
		{"custom-wrapped DeadlineExceeded", wrapper{context.DeadlineExceeded}, errclass.Timeout},
		{"other", errors.New("boom"), errclass.Other},
		{"EOF", io.EOF, errclass.Other},
		// Matching is by identity, never by message text.
		{"text only", errors.New(context.Canceled.Error()), errclass.Other},
		{"wrapped by %v", fmt.Errorf("query: %v", context.DeadlineExceeded), errclass.Other},
	} {
		if got := errclass.Generic(tc.err); got != tc.want {
			t.Errorf("%s: Generic(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestCounts(t *testing.T) {
	var n errclass.Counts
	if n.Total() != 0 || len(n.Map()) != 0 {
		t.Fatalf("zero Counts: total %d map %v, want 0 and empty", n.Total(), n.Map())
	}
	// Add c's index+1 errors of each class: 1 serialization, 2 deadlocks, …
	want := map[string]int64{}
	var total int64
	for i, c := range errclass.All {
		for j := 0; j <= i; j++ {
			n.Add(c)
		}
		want[c.String()] = int64(i + 1)
		total += int64(i + 1)
	}
	// None and out-of-range classes are not errors.
	n.Add(errclass.None)
	n.Add(errclass.Missing + 1)
	n.Add(255)
	if got := n.Total(); got != total {
		t.Errorf("Total = %d, want %d", got, total)
	}
	if got := n.Map(); !reflect.DeepEqual(got, want) {
		t.Errorf("Map = %v, want %v", got, want)
	}
	for i, c := range errclass.All {
		if n[c] != int64(i+1) {
			t.Errorf("n[%v] = %d, want %d", c, n[c], i+1)
		}
	}

	// Map leaves out zero counts.
	var m errclass.Counts
	m.Add(errclass.Deadlock)
	m.Add(errclass.Deadlock)
	m.Add(errclass.Timeout)
	if got, w := m.Map(), map[string]int64{"deadlock": 2, "timeout": 1}; !reflect.DeepEqual(got, w) {
		t.Errorf("Map = %v, want %v", got, w)
	}

	// Merge adds element-wise and leaves its argument alone.
	mcopy := m
	n.Merge(&m)
	if m != mcopy {
		t.Errorf("Merge changed its argument: %v, want %v", m, mcopy)
	}
	want["deadlock"] += 2
	want["timeout"]++
	if got := n.Map(); !reflect.DeepEqual(got, want) {
		t.Errorf("after Merge: Map = %v, want %v", got, want)
	}
	if got := n.Total(); got != total+3 {
		t.Errorf("after Merge: Total = %d, want %d", got, total+3)
	}
	// Merging a zero value changes nothing.
	before := n
	n.Merge(&errclass.Counts{})
	if n != before {
		t.Errorf("merging zero Counts changed %v to %v", before, n)
	}
}
