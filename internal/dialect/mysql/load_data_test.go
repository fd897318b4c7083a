package mysql

import (
	"database/sql/driver"
	"math"
	"testing"
	"time"
)

// SetLoadDataRows sets the rows per LOAD DATA statement and returns a
// function that restores it (for the external tests).
func SetLoadDataRows(n int64) (restore func()) {
	old := loadDataRows
	loadDataRows = n
	return func() { loadDataRows = old }
}

func TestAppendLoadValue(t *testing.T) {
	berlin := time.FixedZone("X", 2*3600)
	ts := time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC)
	for _, tc := range []struct {
		v    any
		want string
		ok   bool
	}{
		{nil, `\N`, true},
		{"plain", "plain", true},
		{"a\tb\nc\\d\re\x00f", `a\tb\nc\\d\re\0f`, true},
		{`\N`, `\\N`, true},
		{[]byte("x\ty"), `x\ty`, true},
		{[]byte(nil), `\N`, true},
		{int64(-42), "-42", true},
		{7, "7", true},
		{int32(8), "8", true},
		{uint64(math.MaxUint64), "18446744073709551615", true},
		{12.34, "12.34", true},
		{300000.0, "300000", true},
		{float32(0.5), "0.5", true},
		{math.NaN(), "", false},
		{true, "1", true},
		{false, "0", true},
		{ts, "2024-01-02 05:04:05.6", true}, // in berlin
		{time.Time{}, "0000-00-00 00:00:00", true},
		{struct{}{}, "", false},
		{driver.Value(nil), `\N`, true},
	} {
		b, ok := appendLoadValue([]byte("|"), tc.v, berlin)
		if ok != tc.ok || (ok && string(b) != "|"+tc.want) {
			t.Errorf("appendLoadValue(%#v) = %q, %v; want %q, %v", tc.v, b, ok, "|"+tc.want, tc.ok)
		}
	}
}
