package rowscan

import (
	"bytes"
	"math"
	"testing"
	"time"
)

func TestText(t *testing.T) {
	var (
		i64 int64
		i   int
		i32 int32
		f   float64
		s   string
		b   []byte
	)
	for _, tc := range []struct {
		src  []byte
		dest any
		want any
	}{
		{[]byte("-42"), &i64, int64(-42)},
		{[]byte("42"), &i, 42},
		{[]byte("2147483647"), &i32, int32(math.MaxInt32)},
		{[]byte("1234.56"), &f, 1234.56},
		{[]byte("7"), &f, 7.0},
		{[]byte("héllo"), &s, "héllo"},
		{[]byte("bytes"), &b, []byte("bytes")},
		{nil, &i64, int64(0)},
		{nil, &s, ""},
		{nil, &f, 0.0},
		{nil, &b, []byte(nil)},
	} {
		if err := Text(tc.dest, tc.src); err != nil {
			t.Errorf("Text(%T, %q): %v", tc.dest, tc.src, err)
			continue
		}
		if got := deref(tc.dest); !equal(got, tc.want) {
			t.Errorf("Text(%T, %q) = %#v, want %#v", tc.dest, tc.src, got, tc.want)
		}
	}
	for _, tc := range []struct {
		src  string
		dest any
	}{{"1234.56", &i64}, {"2147483648", &i32}, {"x", &f}, {"", &i}, {"1", new(bool)}, {"1", i64}} {
		if err := Text(tc.dest, []byte(tc.src)); err == nil {
			t.Errorf("Text(%T, %q) succeeded", tc.dest, tc.src)
		}
	}
}

func TestValue(t *testing.T) {
	var (
		i64 int64
		i32 int32
		f   float64
		s   string
		b   []byte
	)
	ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		src  any
		dest any
		want any
	}{
		{int64(1) << 40, &i64, int64(1) << 40},
		{int64(-5), &i32, int32(-5)},
		{int64(5), &f, 5.0},
		{int64(5), &s, "5"},
		{int64(5), &b, []byte("5")},
		{uint64(math.MaxUint64), &s, "18446744073709551615"},
		{2.0, &i64, int64(2)},
		{1234.56, &s, "1234.56"},
		{float32(1.5), &f, 1.5},
		{[]byte("1234.56"), &f, 1234.56},
		{"77", &i64, int64(77)},
		{ts, &s, "2024-01-02 03:04:05"},
		{ts.Add(500 * time.Millisecond), &s, "2024-01-02 03:04:05.5"},
		{nil, &i64, int64(0)},
	} {
		if err := Value(tc.dest, tc.src); err != nil {
			t.Errorf("Value(%T, %v): %v", tc.dest, tc.src, err)
			continue
		}
		if got := deref(tc.dest); !equal(got, tc.want) {
			t.Errorf("Value(%T, %v) = %#v, want %#v", tc.dest, tc.src, got, tc.want)
		}
	}
	for _, tc := range []struct{ src, dest any }{
		{int64(1) << 40, &i32}, {1.5, &i64}, {math.NaN(), &i64}, {1e19, &i64}, {uint64(math.MaxUint64), &i64},
		{ts, &i64}, {true, &i64}, {int64(1), new(bool)},
	} {
		if err := Value(tc.dest, tc.src); err == nil {
			t.Errorf("Value(%T, %v) succeeded", tc.dest, tc.src)
		}
	}
}

// TestNoAllocs checks that numbers parse and bytes copy into an existing
// buffer without allocating.
func TestNoAllocs(t *testing.T) {
	var (
		i64 int64
		f   float64
		b   = make([]byte, 0, 64)
	)
	num, dec, str := []byte("1234567"), []byte("1234.56"), []byte("some text")
	var v, vdec any = int64(1) << 40, dec
	n := testing.AllocsPerRun(100, func() {
		_ = Text(&i64, num)
		_ = Text(&f, dec)
		_ = Text(&b, str)
		_ = Value(&i64, v)
		_ = Value(&f, vdec)
	})
	if n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

func deref(p any) any {
	switch p := p.(type) {
	case *int64:
		return *p
	case *int:
		return *p
	case *int32:
		return *p
	case *float64:
		return *p
	case *string:
		return *p
	case *[]byte:
		return *p
	}
	return nil
}

func equal(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, _ := b.([]byte)
		return bytes.Equal(x, y) && (x == nil) == (y == nil)
	}
	return a == b
}

// keep is a Scanner that records what it is handed.
type keep struct{ got []any }

func (k *keep) Scan(src any) error {
	k.got = append(k.got, src)
	return nil
}

func TestScanner(t *testing.T) {
	var k keep
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []any{nil, int64(-1), 2.5, true, "s", []byte("b"), now} {
		if err := Value(&k, v); err != nil {
			t.Fatalf("Value(%T): %v", v, err)
		}
	}
	if err := Text(&k, []byte("12")); err != nil {
		t.Fatal(err)
	}
	if err := Text(&k, nil); err != nil {
		t.Fatal(err)
	}
	want := []any{nil, int64(-1), 2.5, true, "s", []byte("b"), now, "12", nil}
	if len(k.got) != len(want) {
		t.Fatalf("got %v, want %v", k.got, want)
	}
	for i := range want {
		if !equal(k.got[i], want[i]) {
			t.Errorf("value %d: %T %v, want %T %v", i, k.got[i], k.got[i], want[i], want[i])
		}
	}
	var i64 int64
	if _, ok := AsScanner(&i64); ok {
		t.Error("AsScanner(*int64) = true")
	}
}

func BenchmarkValueInt64(b *testing.B) {
	var d int64
	var v any = int64(42)
	for b.Loop() {
		if err := Value(&d, v); err != nil {
			b.Fatal(err)
		}
	}
}
