package fileio

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// wantInvalid checks that err is a parser error: it wraps ErrInvalidValue and
// its message holds every one of the wanted parts.
func wantInvalid(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, parts)
		return
	}
	if !errors.Is(err, ErrInvalidValue) {
		t.Errorf("%s: error %q does not wrap ErrInvalidValue", what, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not contain %q", what, err, p)
		}
	}
}

func TestParsePattern(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Pattern
	}{
		{"t1 o32 b16k", Pattern{1, 32, 16 << 10}},
		{"b16k o32 t1", Pattern{1, 32, 16 << 10}},
		{"t1 o32 b2m", Pattern{1, 32, 2 << 20}},
		{"T4 O1 B2M", Pattern{4, 1, 2 << 20}},
		{"  t1\to8\nb1536  ", Pattern{1, 8, 1536}},
		{"t1 o1 b512", Pattern{1, 1, 512}},
		{"t1024 o4096 b64m", Pattern{1024, 4096, 64 << 20}},
		{"t01 o032 b16K", Pattern{1, 32, 16 << 10}},
		{"t1 o1 b1.5k", Pattern{1, 1, 1536}},
		{"t1 o1 b16KiB", Pattern{1, 1, 16 << 10}},
		{"t1 o1 b0.5m", Pattern{1, 1, 512 << 10}},
		{"t2 o4 b65536", Pattern{2, 4, 64 << 10}},
	} {
		got, err := ParsePattern(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParsePattern(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParsePatternErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		parts []string // all in the message
	}{
		{"", []string{`pattern ""`, "missing t<threads>", "missing o<outstanding", "missing b<block size>"}},
		{"   ", []string{"missing t<threads>"}},
		{"t1 o32", []string{`pattern "t1 o32"`, "missing b<block size> (e.g. b16k)"}},
		{"o32 b16k", []string{"missing t<threads> (e.g. t1)"}},
		{"t1 b16k", []string{"missing o<outstanding I/Os per thread> (e.g. o32)"}},
		{"t1 o32 b16k t2", []string{`token "t2": t given twice (already "t1")`}},
		{"t1 o32 b16k B4k", []string{`token "B4k": b given twice`}},
		{"x1 t1 o32 b16k", []string{`token "x1": want t<threads>, o<outstanding I/Os per thread> or b<block size>`}},
		{"t1 o32 b16k q", []string{`token "q"`}},
		{"t0 o32 b16k", []string{`token "t0": threads must be a whole number 1..1024`}},
		{"t1025 o32 b16k", []string{`token "t1025": threads`}},
		{"t-1 o32 b16k", []string{`token "t-1": threads`}},
		{"t+1 o32 b16k", []string{`token "t+1": threads`}},
		{"t1.5 o32 b16k", []string{`token "t1.5": threads`}},
		{"t99999999999999999999999 o1 b4k", []string{`threads must be a whole number 1..1024`}},
		{"t1 o0 b16k", []string{`token "o0": outstanding I/Os per thread must be a whole number 1..4096`}},
		{"t1 o4097 b16k", []string{`token "o4097"`}},
		{"t1 o1k b16k", []string{`token "o1k"`}},
		{"t1 o32 b1000", []string{`token "b1000": block size 1000B must be a multiple of 512 bytes from 512 to 64m`}},
		{"t1 o32 b256", []string{`token "b256": block size 256B`}},
		{"t1 o32 b0", []string{`token "b0": block size 0B`}},
		{"t1 o32 b128m", []string{`token "b128m": block size 128MiB`}},
		{"t1 o32 b1g", []string{`token "b1g"`}},
		{"t1 o32 b16x", []string{`token "b16x": size "16x": unknown unit "x"`}},
		{"t1 o32 bk", []string{`token "bk": size "k"`, "does not start with a digit"}},
		{"t1 o32 b-4k", []string{`token "b-4k": size "-4k": negative`}},
		{"t o32 b16k", []string{`token "t": t needs a value with no space, e.g. t<threads> (e.g. t1)`}},
		{"t1 o32 b 16k", []string{`token "b": b needs a value`, `token "16k": want t<threads>`}},
		{"t1o32b16k", []string{`token "t1o32b16k": threads`, "missing o<", "missing b<"}},
		{"t1, o32, b16k", []string{`token "t1,"`, `token "o32,"`}},
		// Every problem at once.
		{"t0 o0 b3", []string{`token "t0"`, `token "o0"`, `token "b3"`}},
	} {
		p, err := ParsePattern(tc.in)
		wantInvalid(t, fmt.Sprintf("ParsePattern(%q)", tc.in), err, tc.parts...)
		if p != (Pattern{}) {
			t.Errorf("ParsePattern(%q) = %+v with an error, want the zero Pattern", tc.in, p)
		}
	}
}

func TestPatternString(t *testing.T) {
	for _, tc := range []struct {
		p    Pattern
		want string
	}{
		{Pattern{1, 32, 16 << 10}, "t1 o32 b16k"},
		{Pattern{4, 1, 2 << 20}, "t4 o1 b2m"},
		{Pattern{1, 8, 1536}, "t1 o8 b1536"},
		{Pattern{1, 1, 512}, "t1 o1 b512"},
		{Pattern{1, 1, 1024}, "t1 o1 b1k"},
		{Pattern{1, 1, 1536 << 10}, "t1 o1 b1536k"},
		{Pattern{1024, 4096, 64 << 20}, "t1024 o4096 b64m"},
		{Pattern{1, 1, 1 << 30}, "t1 o1 b1g"}, // out of range, still written
		{Pattern{}, "t0 o0 b0"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestPatternRoundTrip: every valid block size, and the limits of threads and
// depth, survive String and ParsePattern.
func TestPatternRoundTrip(t *testing.T) {
	check := func(p Pattern) {
		t.Helper()
		s := p.String()
		got, err := ParsePattern(s)
		if err != nil || got != p {
			t.Fatalf("ParsePattern(%q) = %+v, %v; want %+v", s, got, err, p)
		}
	}
	for b := int64(MinBlock); b <= MaxBlock; b += 512 {
		check(Pattern{1, 32, b})
	}
	for _, n := range []int{1, 2, 31, 32, 1023, 1024} {
		check(Pattern{n, 1, 4096})
		check(Pattern{1, n, 4096})
	}
	check(Pattern{1, MaxDepth, 4096})
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"0k", 0},
		{"1", 1},
		{"512", 512},
		{"4096b", 4096},
		{"4096B", 4096},
		{"4k", 4096},
		{"4K", 4096},
		{"4kb", 4096},
		{"4KB", 4096},
		{"4kB", 4096},
		{"4KiB", 4096},
		{"4kib", 4096},
		{"4Ki", 4096},
		{"4 KiB", 4096},
		{" 4k\t", 4096},
		{"007k", 7 << 10},
		{"2m", 2097152},
		{"2MiB", 2 << 20},
		{"20G", 20 << 30},
		{"20GiB", 20 << 30},
		{"1t", 1 << 40},
		{"1p", 1 << 50},
		{"1.5k", 1536},
		{"0.5m", 512 << 10},
		{"1.25g", 1280 << 20},
		{"1.500k", 1536},
		{"8191p", 8191 << 50},
		{"9223372036854775807", math.MaxInt64},
		{"9223372036854775807.0", math.MaxInt64},
	} {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestParseSizeErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		parts []string
	}{
		{"", []string{`size ""`, "empty", "want a number with an optional unit k, m, g, t or p"}},
		{"  ", []string{"empty"}},
		{"-4k", []string{`size "-4k": negative values are not allowed`}},
		{"-0", []string{"negative"}},
		{"+4k", []string{`size "+4k"`, "does not start with a digit"}},
		{"1.1k", []string{`size "1.1k": 1126.4 bytes is not a whole number of bytes`}},
		{"0.5", []string{"0.5 bytes is not a whole number of bytes"}},
		{"0.001k", []string{"1.024 bytes is not"}},
		{"20000000P", []string{`size "20000000P": too large`}},
		{"8192p", []string{"too large"}},
		{"9223372036854775808", []string{"too large"}},
		{"99999999999999999999999999999999k", []string{"too large"}},
		{"abc", []string{`size "abc"`, "does not start with a digit"}},
		{"k", []string{"does not start with a digit"}},
		{"4x", []string{`size "4x": unknown unit "x"`}},
		{"4kk", []string{`unknown unit "kk"`}},
		{"4kibb", []string{`unknown unit "kibb"`}},
		{"4e", []string{`unknown unit "e"`}},
		{"4e3", []string{`unknown unit "e3"`}},
		{"0x10", []string{`unknown unit "x10"`}},
		{"4k4", []string{`unknown unit "k4"`}},
		{"1,024", []string{`size "1,024"`, "without separators"}},
		{"1_024", []string{"without separators"}},
		{"1 024", []string{"without separators"}},
		{".5k", []string{`".5" is not a number`, "digits on both sides of the point"}},
		{"1.k", []string{`"1." is not a number`}},
		{"1.2.3k", []string{"more than one point"}},
		{"NaN", []string{"does not start with a digit"}},
		{"inf", []string{"does not start with a digit"}},
		{"4\u212a", []string{"unknown unit"}}, // Kelvin sign, not k
		{"４k", []string{"does not start with a digit"}},
	} {
		n, err := ParseSize(tc.in)
		wantInvalid(t, fmt.Sprintf("ParseSize(%q)", tc.in), err, tc.parts...)
		if n != 0 {
			t.Errorf("ParseSize(%q) = %d with an error, want 0", tc.in, n)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{512, "512B"},
		{1536, "1536B"},
		{1024, "1KiB"},
		{16 << 10, "16KiB"},
		{2 << 20, "2MiB"},
		{20 << 30, "20GiB"},
		{1536 << 20, "1536MiB"},
		{1 << 40, "1TiB"},
		{1 << 50, "1PiB"},
		{1 << 60, "1024PiB"},
		{math.MaxInt64, "9223372036854775807B"},
		{-16 << 10, "-16KiB"},
	} {
		if got := FormatSize(tc.n); got != tc.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
		if tc.n >= 0 {
			if back, err := ParseSize(tc.want); err != nil || back != tc.n {
				t.Errorf("ParseSize(FormatSize(%d) = %q) = %d, %v", tc.n, tc.want, back, err)
			}
		}
	}
}

func TestParseReadMix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"100,90,70", []int{100, 90, 70}},
		{"100", []int{100}},
		{"0", []int{0}},
		{"0,100", []int{0, 100}},
		{" 70 , 30 ", []int{70, 30}},
		{"70,90,100", []int{70, 90, 100}},
		{"050", []int{50}},
	} {
		got, err := ParseReadMix(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseReadMix(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseReadMixErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		parts []string
	}{
		{"", []string{`read mix ""`, "empty", "want read percentages 0..100 separated by commas"}},
		{"  ", []string{"empty"}},
		{"100,100", []string{`read mix "100,100": 100 given twice`}},
		{"100,0100", []string{"100 given twice"}},
		{"101", []string{`"101" is not a whole number 0..100`}},
		{"-1", []string{`"-1" is not a whole number 0..100`}},
		{"+1", []string{`"+1" is not`}},
		{"100,,70", []string{"item 2 is empty"}},
		{"100,", []string{"item 2 is empty"}},
		{",100", []string{"item 1 is empty"}},
		{"50%", []string{`"50%" is not`}},
		{"1.5", []string{`"1.5" is not`}},
		{"100;90", []string{`"100;90" is not`}},
		{"99999999999999999999999", []string{"is not a whole number 0..100"}},
		// Every problem at once.
		{"101,abc,5,5", []string{`"101"`, `"abc"`, "5 given twice"}},
	} {
		mix, err := ParseReadMix(tc.in)
		wantInvalid(t, fmt.Sprintf("ParseReadMix(%q)", tc.in), err, tc.parts...)
		if mix != nil {
			t.Errorf("ParseReadMix(%q) = %v with an error, want nil", tc.in, mix)
		}
	}
}

func TestParseRW(t *testing.T) {
	for _, tc := range []struct {
		in      string
		random  bool
		readPct int
		mixed   bool
	}{
		{"read", false, 100, false},
		{"write", false, 0, false},
		{"randread", true, 100, false},
		{"randwrite", true, 0, false},
		{"rw", false, DefaultReadPct, true},
		{"readwrite", false, DefaultReadPct, true},
		{"randrw", true, DefaultReadPct, true},
		{"RandRead", true, 100, false},
		{" randrw ", true, DefaultReadPct, true},
	} {
		random, readPct, mixed, err := ParseRW(tc.in)
		if err != nil || random != tc.random || readPct != tc.readPct || mixed != tc.mixed {
			t.Errorf("ParseRW(%q) = %v, %d, %v, %v; want %v, %d, %v", tc.in, random, readPct, mixed, err, tc.random, tc.readPct, tc.mixed)
		}
	}
	if DefaultReadPct != 50 {
		t.Errorf("DefaultReadPct = %d, want fio's default rwmixread 50", DefaultReadPct)
	}
}

func TestParseRWErrors(t *testing.T) {
	const valid = "want read, write, randread, randwrite, rw, readwrite or randrw"
	for _, tc := range []struct {
		in    string
		parts []string
	}{
		{"trim", []string{`rw "trim": trims (discards) are not supported`, valid}},
		{"randtrim", []string{`rw "randtrim": trims (discards) are not supported`}},
		{"trimwrite", []string{"not supported"}},
		{"randtrimwrite", []string{"not supported"}},
		{"randread:8", []string{`rw "randread:8": fio's offset modifier ":8" is not supported; write "randread" alone`}},
		{"write:4k", []string{`modifier ":4k"`}},
		{"foo:8", []string{`rw "foo:8": ` + valid}},
		{"", []string{`rw ""`, valid}},
		{"randomread", []string{`rw "randomread"`, valid}},
		{"rand read", []string{valid}},
	} {
		random, readPct, mixed, err := ParseRW(tc.in)
		wantInvalid(t, fmt.Sprintf("ParseRW(%q)", tc.in), err, tc.parts...)
		if random || readPct != 0 || mixed {
			t.Errorf("ParseRW(%q) = %v, %d, %v with an error, want zero values", tc.in, random, readPct, mixed)
		}
	}
}

func ExamplePattern_String() {
	p, err := ParsePattern("B2M o1 t4")
	if err != nil {
		panic(err)
	}
	fmt.Println(p, p.Threads, p.Depth, FormatSize(p.Block))
	_, err = ParsePattern("t1 o32 b1000")
	fmt.Println(err)
	// Output:
	// t4 o1 b2m 4 1 2MiB
	// pattern "t1 o32 b1000": token "b1000": block size 1000B must be a multiple of 512 bytes from 512 to 64m (e.g. b4k, b16k, b2m)
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{
		"t1 o32 b16k", "t1 o32 b2m", "b1536 o8 t1", "T4 O1 B2M", "t1024 o4096 b64m",
		"", "t0", "t1 o1 b1.5k", "t1 t1", "t1 o1 b1000", "t1 o1 b16KiB", "t1o1b4k",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePattern(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("ParsePattern(%q): error %q does not wrap ErrInvalidValue", s, err)
			}
			if p != (Pattern{}) {
				t.Fatalf("ParsePattern(%q) = %+v with an error", s, p)
			}
			return
		}
		if p.Threads < 1 || p.Threads > MaxThreads || p.Depth < 1 || p.Depth > MaxDepth ||
			p.Block < MinBlock || p.Block > MaxBlock || p.Block%512 != 0 {
			t.Fatalf("ParsePattern(%q) = %+v: outside the limits", s, p)
		}
		c := p.String()
		q, err := ParsePattern(c)
		if err != nil || q != p {
			t.Fatalf("ParsePattern(%q) = %+v; its String %q re-parses to %+v, %v", s, p, c, q, err)
		}
		if q.String() != c {
			t.Fatalf("String not canonical: %q then %q", c, q.String())
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{
		"4k", "2m", "20G", "1.5k", "1.1k", "20000000P", "0", "-4k", "4 KiB", "1536",
		"9223372036854775807", "8191p", "2TB", "1.92TB", "2000GB", "2TiB", "0.5", "1,024", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidValue) || n != 0 {
				t.Fatalf("ParseSize(%q) = %d, %q: want 0 and an error wrapping ErrInvalidValue", s, n, err)
			}
		} else {
			if n < 0 {
				t.Fatalf("ParseSize(%q) = %d < 0", s, n)
			}
			for _, w := range []string{FormatSize(n), fioSize(n)} {
				back, err := ParseSize(w)
				if err != nil || back != n {
					t.Fatalf("ParseSize(%q) = %d, written %q, re-parses to %d, %v", s, n, w, back, err)
				}
			}
		}

		// The same input as a capacity: never panics, positive or an error.
		c, err := ParseCapacity(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidValue) || c != 0 {
				t.Fatalf("ParseCapacity(%q) = %d, %q: want 0 and an error wrapping ErrInvalidValue", s, c, err)
			}
		} else if c <= 0 {
			t.Fatalf("ParseCapacity(%q) = %d <= 0", s, c)
		}
	})
}
