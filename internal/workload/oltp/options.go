package oltp

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/datagen"
)

// Options are sysbench's OLTP options (oltp_common.lua plus the --rand-*
// options of sb_rand.c), with sysbench's defaults. Counts are per transaction.
// The result records them as they are, keyed by flag name (the JSON form);
// those tagged data shape the tables prepare loads (workload.Option).
type Options struct {
	Tables             int    `json:"tables" data:"true"`               // --tables: number of tables sbtest1..N
	TableSize          int64  `json:"table-size" data:"true"`           // --table-size: rows per table
	RangeSize          int64  `json:"range-size"`                       // --range-size: rows per range SELECT
	PointSelects       int    `json:"point-selects"`                    // --point-selects
	SimpleRanges       int    `json:"simple-ranges"`                    // --simple-ranges
	SumRanges          int    `json:"sum-ranges"`                       // --sum-ranges
	OrderRanges        int    `json:"order-ranges"`                     // --order-ranges
	DistinctRanges     int    `json:"distinct-ranges"`                  // --distinct-ranges
	IndexUpdates       int    `json:"index-updates"`                    // --index-updates
	NonIndexUpdates    int    `json:"non-index-updates"`                // --non-index-updates
	DeleteInserts      int    `json:"delete-inserts"`                   // --delete-inserts
	RangeSelects       bool   `json:"range-selects"`                    // --range-selects: run the four range groups at all
	SkipTrx            bool   `json:"skip-trx"`                         // --skip-trx: autocommit, no BEGIN/COMMIT
	AutoInc            bool   `json:"auto-inc" data:"true"`             // --auto-inc: ids numbered by the database
	CreateSecondary    bool   `json:"create-secondary" data:"true"`     // --create-secondary: create index k_N after the load
	CreateTableOptions string `json:"create-table-options" data:"true"` // --create-table-options: appended to CREATE TABLE

	RandType       string  `json:"rand-type"`        // --rand-type: uniform, gaussian, special, pareto, zipfian
	RandSpecIter   int     `json:"rand-spec-iter"`   // --rand-spec-iter
	RandSpecPct    int     `json:"rand-spec-pct"`    // --rand-spec-pct
	RandSpecRes    int     `json:"rand-spec-res"`    // --rand-spec-res
	RandParetoH    float64 `json:"rand-pareto-h"`    // --rand-pareto-h
	RandZipfianExp float64 `json:"rand-zipfian-exp"` // --rand-zipfian-exp
}

// DefaultRandType is the default --rand-type: sysbench 1.0's own default, so
// that a run with default options reads the same rows as sysbench 1.0 does
// (sysbench 1.1 switched to uniform; see Long).
const DefaultRandType = "special"

// DefaultOptions returns sysbench 1.0's defaults.
func DefaultOptions() Options {
	return Options{
		Tables:          1,
		TableSize:       10000,
		RangeSize:       100,
		PointSelects:    10,
		SimpleRanges:    1,
		SumRanges:       1,
		OrderRanges:     1,
		DistinctRanges:  1,
		IndexUpdates:    1,
		NonIndexUpdates: 1,
		DeleteInserts:   1,
		RangeSelects:    true,
		SkipTrx:         false,
		AutoInc:         true,
		CreateSecondary: true,
		RandType:        DefaultRandType,
		RandSpecIter:    12,
		RandSpecPct:     1,
		RandSpecRes:     75,
		RandParetoH:     0.2,
		RandZipfianExp:  0.8,
	}
}

func (o *Options) bind(fs *pflag.FlagSet) {
	d := DefaultOptions()
	fs.IntVar(&o.Tables, "tables", d.Tables, "number of tables (sbtest1..N)")
	fs.Int64Var(&o.TableSize, "table-size", d.TableSize, "number of rows per table")
	fs.Int64Var(&o.RangeSize, "range-size", d.RangeSize, "range size for range SELECT queries")
	fs.IntVar(&o.PointSelects, "point-selects", d.PointSelects, "number of point SELECT queries per transaction (oltp_point_select always runs 1)")
	fs.IntVar(&o.SimpleRanges, "simple-ranges", d.SimpleRanges, "number of simple range SELECT queries per transaction")
	fs.IntVar(&o.SumRanges, "sum-ranges", d.SumRanges, "number of SELECT SUM() queries per transaction")
	fs.IntVar(&o.OrderRanges, "order-ranges", d.OrderRanges, "number of SELECT ORDER BY queries per transaction")
	fs.IntVar(&o.DistinctRanges, "distinct-ranges", d.DistinctRanges, "number of SELECT DISTINCT queries per transaction")
	fs.IntVar(&o.IndexUpdates, "index-updates", d.IndexUpdates, "number of UPDATE index queries per transaction")
	fs.IntVar(&o.NonIndexUpdates, "non-index-updates", d.NonIndexUpdates, "number of UPDATE non-index queries per transaction")
	fs.IntVar(&o.DeleteInserts, "delete-inserts", d.DeleteInserts, "number of DELETE/INSERT combinations per transaction")
	fs.BoolVar(&o.RangeSelects, "range-selects", d.RangeSelects, "enable/disable all range SELECT queries")
	fs.BoolVar(&o.SkipTrx, "skip-trx", d.SkipTrx, "don't start explicit transactions; run every query in autocommit mode")
	fs.BoolVar(&o.AutoInc, "auto-inc", d.AutoInc, "let the database number ids (AUTO_INCREMENT, SERIAL, AUTOINCREMENT); when false, ids are generated by the client")
	fs.BoolVar(&o.CreateSecondary, "create-secondary", d.CreateSecondary, "create the secondary index k_N on k after loading")
	fs.StringVar(&o.CreateTableOptions, "create-table-options", d.CreateTableOptions, "extra CREATE TABLE options, appended verbatim (no ';': one statement only)")
	fs.StringVar(&o.RandType, "rand-type", d.RandType, "distribution of row ids: uniform, gaussian, special, pareto, zipfian")
	fs.IntVar(&o.RandSpecIter, "rand-spec-iter", d.RandSpecIter, "number of uniform draws averaged by the gaussian and special distributions")
	fs.IntVar(&o.RandSpecPct, "rand-spec-pct", d.RandSpecPct, "percentage of the id range treated as 'special' (special distribution)")
	fs.IntVar(&o.RandSpecRes, "rand-spec-res", d.RandSpecRes, "percentage of ids drawn from the 'special' part (special distribution)")
	fs.Float64Var(&o.RandParetoH, "rand-pareto-h", d.RandParetoH, "shape parameter h of the pareto distribution, in (0, 1)")
	fs.Float64Var(&o.RandZipfianExp, "rand-zipfian-exp", d.RandZipfianExp, "exponent (theta) of the zipfian distribution, >= 0")
}

// maxID is the largest id an INTEGER column holds in every dialect.
const maxID = math.MaxInt32

// Validate returns every problem at once.
func (o Options) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Tables < 1 || o.Tables > 1_000_000 {
		bad("--tables must be in [1, 1000000], got %d", o.Tables)
	}
	if o.TableSize < 1 || o.TableSize > maxID {
		bad("--table-size must be in [1, %d], got %d", maxID, o.TableSize)
	}
	if o.RangeSize < 0 || o.RangeSize > maxID {
		bad("--range-size must be in [0, %d], got %d", maxID, o.RangeSize)
	}
	for _, c := range []struct {
		name string
		v    int
	}{
		{"point-selects", o.PointSelects}, {"simple-ranges", o.SimpleRanges}, {"sum-ranges", o.SumRanges},
		{"order-ranges", o.OrderRanges}, {"distinct-ranges", o.DistinctRanges}, {"index-updates", o.IndexUpdates},
		{"non-index-updates", o.NonIndexUpdates}, {"delete-inserts", o.DeleteInserts},
	} {
		if c.v < 0 || c.v > 100_000 {
			bad("--%s must be in [0, 100000], got %d", c.name, c.v)
		}
	}
	// The options are appended to CREATE TABLE as they are; a statement
	// separator would run a second statement of the user's (on PostgreSQL,
	// whose simple protocol runs several) with rightsize's privileges.
	if strings.ContainsAny(o.CreateTableOptions, ";\x00") {
		bad("--create-table-options %q: want table options only (such as ENGINE=InnoDB), without ';'", o.CreateTableOptions)
	}
	if _, err := o.distConfig(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// distConfig builds the --rand-type distribution's configuration.
func (o Options) distConfig() (datagen.DistSpec, error) {
	k, kerr := datagen.ParseKind(o.RandType)
	if kerr != nil {
		kerr = fmt.Errorf("--rand-type: %w", kerr)
	}
	cfg := datagen.DistSpec{
		Kind:     k,
		SpecIter: o.RandSpecIter,
		SpecPct:  o.RandSpecPct,
		SpecRes:  o.RandSpecRes,
		ParetoH:  o.RandParetoH,
		ZipfExp:  o.RandZipfianExp,
	}
	return cfg, errors.Join(kerr, cfg.Validate())
}
