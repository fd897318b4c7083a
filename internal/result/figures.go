package result

import (
	"encoding/json"
	"math"
)

// Figures are a workload's own figures in a form every report renders
// without knowing the workload: a headline of named values, more figures, limit
// checks, tables and notes. The workload's summariser fills them (see
// Hooks.Summarize), for the run and for each instance, as a pure
// function of the result's generic data (ops and their histograms,
// counters, options), so that a saved or merged result can be summarised
// again. Its own typed figures are in its section (Run.Section).
type Figures struct {
	// Title says what the figures are of ("TPC-C, 10 warehouse(s), 100
	// terminal(s), think scale 1"); the text summary writes the headline on
	// its line.
	Title string `json:"title,omitempty"`
	// Column heads this run's column where the figures of several runs (a
	// command's steps, such as fileio's read mixes) are set side by side:
	// one row per headline figure, one column per run. A run whose figures
	// have a Column is shown that way in its own summary too (one column).
	Column string `json:"column,omitempty"`
	// Primary names the headline figure that stands for the run in a
	// listing of runs (rightsize report): its value in place of the
	// throughput, its name as the unit ("IOPS"). Empty: the throughput.
	Primary string `json:"primary,omitempty"`
	// Headline are the figures that sum the run up, in the order shown.
	// Where runs are set side by side (Column), each lists the same figures
	// so that the rows line up: one that does not apply to a run (a write
	// latency where nothing was written) is there with a null value, shown
	// as "-", and a row no run has a value for is left out.
	Headline []Figure `json:"headline,omitempty"`
	// Details are further figures, shown on a line of their own.
	Details []Figure `json:"details,omitempty"`
	// Checks are limits the figures are held to (TPC-C's response-time
	// limits and minimum mix).
	Checks []Check `json:"checks,omitempty"`
	Tables []Table `json:"tables,omitempty"`
	// Notes qualify the figures, one sentence each.
	Notes []string `json:"notes,omitempty"`
}

// Figure is one named value.
type Figure struct {
	// Name is what scripts look the figure up by and reports label it
	// with: "tpmC", "read p99", "IOPS per VM".
	Name string `json:"name"`
	// Value is null in JSON when it is not a finite number (read as NaN).
	Value float64 `json:"value"`
	// Unit is Value's ("ms", "%", "/min"), shown after it; empty when the
	// name says it ("IOPS", "tpmC").
	Unit string `json:"unit,omitempty"`
	// Decimals is how many digits after the point reports show.
	Decimals int `json:"decimals,omitempty"`
}

// Check is one figure held to a limit.
type Check struct {
	Name string `json:"name"` // "delivery p90", "payment mix"
	// Got and Limit are in Unit; null in JSON when not finite.
	Got   float64 `json:"got"`
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit,omitempty"`
	// Min says the limit is a minimum that Got must reach; otherwise it is
	// a maximum.
	Min bool `json:"min,omitempty"`
	// OK is the workload's verdict, which may allow a tolerance that Got
	// and Limit alone do not show.
	OK bool `json:"ok"`
	// Decimals is how many digits of Got reports show.
	Decimals int `json:"decimals,omitempty"`
}

// Table is a table of text cells, formatted by the workload; numbers are
// aligned right.
type Table struct {
	Title   string     `json:"title,omitempty"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Find returns the headline figure named name.
func (f *Figures) Find(name string) (Figure, bool) {
	if f == nil {
		return Figure{}, false
	}
	for _, x := range f.Headline {
		if x.Name == name {
			return x, true
		}
	}
	return Figure{}, false
}

// finite returns &x, or nil (null in JSON) when x is NaN or infinite.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// orNaN reads a null (or missing) number as NaN.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// figureJSON and checkJSON are Figure and Check with their numbers as
// pointers, nil for null, in the same order.
type figureJSON struct {
	Name     string   `json:"name"`
	Value    *float64 `json:"value"`
	Unit     string   `json:"unit,omitempty"`
	Decimals int      `json:"decimals,omitempty"`
}

// MarshalJSON writes a value that is not finite as null.
func (f Figure) MarshalJSON() ([]byte, error) {
	return json.Marshal(figureJSON{f.Name, finite(f.Value), f.Unit, f.Decimals})
}

// UnmarshalJSON reads a null value as NaN.
func (f *Figure) UnmarshalJSON(data []byte) error {
	var v figureJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = Figure{v.Name, orNaN(v.Value), v.Unit, v.Decimals}
	return nil
}

type checkJSON struct {
	Name     string   `json:"name"`
	Got      *float64 `json:"got"`
	Limit    *float64 `json:"limit"`
	Unit     string   `json:"unit,omitempty"`
	Min      bool     `json:"min,omitempty"`
	OK       bool     `json:"ok"`
	Decimals int      `json:"decimals,omitempty"`
}

// MarshalJSON writes figures that are not finite as null.
func (c Check) MarshalJSON() ([]byte, error) {
	return json.Marshal(checkJSON{c.Name, finite(c.Got), finite(c.Limit), c.Unit, c.Min, c.OK, c.Decimals})
}

// UnmarshalJSON reads null figures as NaN.
func (c *Check) UnmarshalJSON(data []byte) error {
	var v checkJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = Check{v.Name, orNaN(v.Got), orNaN(v.Limit), v.Unit, v.Min, v.OK, v.Decimals}
	return nil
}
