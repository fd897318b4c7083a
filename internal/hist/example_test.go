package hist_test

import (
	"fmt"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
)

// Quantiles are fractions in [0, 1]: 0.99 is p99.
func ExampleHistogram_Quantile() {
	h := hist.New()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond) // 1 ms … 100 ms
	}
	// Values are kept to 3 significant digits; round for display.
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		fmt.Printf("p%g: %v\n", q*100, h.Quantile(q).Round(time.Millisecond))
	}
	fmt.Println("count:", h.Count())
	// Output:
	// p50: 50ms
	// p90: 90ms
	// p99: 99ms
	// p100: 100ms
	// count: 100
}
