package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrMismatch marks prepared data that differ from the options a run was
// given: tables loaded with another --table-size, a file laid out with
// another --size. run refuses such an instance unless --force (the run then
// goes on with a warning). Make one with Mismatchf. What cannot run at all
// (missing tables, fewer TPC-C warehouses than asked) is not a mismatch: it
// is refused even with --force.
var ErrMismatch = errors.New("the prepared data do not match the options")

// Mismatchf returns an error wrapping ErrMismatch whose text is the
// formatted message alone.
func Mismatchf(format string, args ...any) error {
	return mismatch(fmt.Sprintf(format, args...))
}

type mismatch string

func (m mismatch) Error() string        { return string(m) }
func (m mismatch) Is(target error) bool { return target == ErrMismatch }

// ErrNotPrepared marks what a run cannot use because prepare has not
// loaded it (missing tables, fewer TPC-C warehouses than asked): refused
// even with --force. A workload's own error wraps it (NotPrepared), so that
// a caller can say how to prepare.
var ErrNotPrepared = errors.New("the data are not prepared")

// NotPrepared returns an error whose text is msg, wrapping ErrNotPrepared.
func NotPrepared(msg string) error { return &notPrepared{msg} }

type notPrepared struct{ msg string }

func (e *notPrepared) Error() string        { return e.msg }
func (e *notPrepared) Is(target error) bool { return target == ErrNotPrepared }

// Thousands writes n with a comma between groups of three digits
// ("1,000,000"), as messages that compare row counts show them.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
