package workload

import (
	"errors"
	"fmt"
	"testing"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 10000: "10,000", 100000: "100,000",
		1000000: "1,000,000", -1234567: "-1,234,567", 123456789012: "123,456,789,012",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMismatchf(t *testing.T) {
	err := Mismatchf("tables hold %s rows each, --table-size asks %s", Thousands(10000), Thousands(1000000))
	if err.Error() != "tables hold 10,000 rows each, --table-size asks 1,000,000" {
		t.Errorf("text %q: want the message alone", err)
	}
	if !errors.Is(err, ErrMismatch) || !errors.Is(fmt.Errorf("x: %w", err), ErrMismatch) {
		t.Error("Mismatchf's error does not wrap ErrMismatch")
	}
	if errors.Is(errors.New("other"), ErrMismatch) {
		t.Error("an unrelated error is a mismatch")
	}
}
