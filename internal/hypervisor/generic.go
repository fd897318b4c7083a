package hypervisor

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReadCSV reads the generic form any hypervisor's or cloud's monitoring
// export can be put in: rows of time, metric, value (a first row "time,
// metric, value" is a header). The time is RFC 3339 or Unix seconds; the
// metrics are host_cpu_pct, used_pct, ready_pct, costop_pct,
// max_limited_pct and wait_pct, the VM's per vCPU (taken as given), others
// ignored. Rows of one time make one sample. vm and vcpus only label the
// series. A line over 1 MiB, or more than 6 × MaxSamples rows, is refused
// (ErrTooLong, with ErrFormat).
func ReadCSV(r io.Reader, vm string, vcpus int) (*Series, error) {
	cr := csv.NewReader(newLineLimit(r, maxCSVLine, 6*MaxSamples, "a time, metric, value CSV"))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = 3
	cr.TrimLeadingSpace = true
	by := map[int64]*Sample{} // by instant (time.Time keys differ by zone)
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, ErrTooLong) {
			return nil, fmt.Errorf("%w: csv: %w", ErrFormat, err)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: csv: %v (want rows of time, metric, value)", ErrFormat, err)
		}
		if line == 1 && strings.EqualFold(rec[0], "time") {
			continue
		}
		at, err := parseTime(rec[0])
		if err != nil {
			return nil, fmt.Errorf("%w: csv: row %d: time %q: want RFC 3339 (2026-12-02T10:00:05Z) or Unix seconds", ErrFormat, line, clip(rec[0]))
		}
		met := slices.Index(metricNames[:], strings.TrimSpace(rec[1]))
		if met < 0 {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[2]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: csv: row %d: %s: %q is not a number", ErrFormat, line, rec[1], clip(rec[2]))
		}
		x, ok := by[at.UnixNano()]
		if !ok {
			x = &Sample{At: at.UTC(), V: nan()}
			by[at.UnixNano()] = x
		}
		x.V[met] = v
	}
	if len(by) == 0 {
		return nil, fmt.Errorf("%w: csv: no rows of a known metric (%s)", ErrFormat, strings.Join(metricNames[:], ", "))
	}
	s := &Series{Source: "csv", VM: vm, VCPUs: vcpus}
	for _, x := range by {
		s.Samples = append(s.Samples, *x)
	}
	slices.SortFunc(s.Samples, func(a, b Sample) int { return a.At.Compare(b.At) })
	return s, nil
}

func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e11 || math.IsNaN(f) {
		return time.Time{}, errors.New("not a time")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}
