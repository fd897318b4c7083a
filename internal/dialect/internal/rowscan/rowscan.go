// Package rowscan stores column values into the destinations dialect.Rows.Scan
// accepts (*int64, *int, *int32, *float64, *string, *[]byte, a Scanner), for
// the dialects: from a column's text form (PostgreSQL's text protocol, MySQL's
// DECIMAL and string columns) or from a driver value. It allocates only for
// what it must create: a string, or a byte slice larger than the one in dest.
package rowscan

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// TimeLayout is the text form of a time value scanned into a string, as
// PostgreSQL and MySQL print a TIMESTAMP (a fraction of a second only when
// there is one).
const TimeLayout = "2006-01-02 15:04:05.999999999"

// Scanner is a destination that converts the column's value itself, as
// database/sql's Scanner: it is handed nil for NULL, or an int64, float64,
// bool, []byte, string or time.Time.
type Scanner interface {
	Scan(src any) error
}

// AsScanner returns dest as a Scanner. The destinations rowscan stores
// itself are told apart first, by a type switch that costs less than the
// assertion to an interface would on every column of the hot path.
func AsScanner(dest any) (Scanner, bool) {
	switch dest.(type) {
	case *int64, *int, *int32, *float64, *string, *[]byte:
		return nil, false
	}
	s, ok := dest.(Scanner)
	return s, ok
}

// Text stores a column's text form into dest (a Scanner gets it as a
// string); a nil b is NULL, which stores the zero value.
func Text(dest any, b []byte) error {
	if b == nil {
		return Zero(dest)
	}
	return text(dest, b)
}

// text parses b, a non-NULL column's text, into dest. It is generic so that a
// string value is parsed without a conversion to bytes; string(b) in the
// strconv calls does not escape, so it needs no allocation for short values.
func text[T string | []byte](dest any, b T) error {
	switch d := dest.(type) {
	case *string:
		*d = string(b)
	case *[]byte:
		*d = append((*d)[:0], b...)
	case *int64:
		v, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return err
		}
		*d = v
	case *int:
		v, err := strconv.ParseInt(string(b), 10, strconv.IntSize)
		if err != nil {
			return err
		}
		*d = int(v)
	case *int32:
		v, err := strconv.ParseInt(string(b), 10, 32)
		if err != nil {
			return err
		}
		*d = int32(v)
	case *float64:
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return err
		}
		*d = v
	case Scanner:
		return d.Scan(string(b))
	default:
		return badDest(dest)
	}
	return nil
}

// Zero stores dest's zero value (a NULL column).
func Zero(dest any) error {
	switch d := dest.(type) {
	case *string:
		*d = ""
	case *[]byte:
		*d = nil
	case *int64:
		*d = 0
	case *int:
		*d = 0
	case *int32:
		*d = 0
	case *float64:
		*d = 0
	case Scanner:
		return d.Scan(nil)
	default:
		return badDest(dest)
	}
	return nil
}

// Value stores a driver value (database/sql/driver.Value, or what
// database/sql scans into an *any) into dest. []byte and string values are
// column text; nil is NULL. A Scanner gets v as it is.
func Value(dest any, v any) error {
	if s, ok := AsScanner(dest); ok {
		return s.Scan(v)
	}
	switch v := v.(type) {
	case nil:
		return Zero(dest)
	case []byte:
		return text(dest, v)
	case string:
		return text(dest, v)
	case int64:
		return fromInt(dest, v)
	case int:
		return fromInt(dest, int64(v))
	case int32:
		return fromInt(dest, int64(v))
	case uint64:
		if v <= math.MaxInt64 {
			return fromInt(dest, int64(v))
		}
		switch d := dest.(type) {
		case *float64:
			*d = float64(v)
		case *string:
			*d = strconv.FormatUint(v, 10)
		case *[]byte:
			*d = strconv.AppendUint((*d)[:0], v, 10)
		default:
			return fmt.Errorf("value %d out of range for %T", v, dest)
		}
		return nil
	case float64:
		return fromFloat(dest, v, 64)
	case float32:
		return fromFloat(dest, float64(v), 32)
	case time.Time:
		switch d := dest.(type) {
		case *string:
			*d = v.Format(TimeLayout)
		case *[]byte:
			*d = v.AppendFormat((*d)[:0], TimeLayout)
		default:
			return fmt.Errorf("cannot scan a time into %T", dest)
		}
		return nil
	default:
		return fmt.Errorf("cannot scan a %T value", v)
	}
}

func fromInt(dest any, v int64) error {
	switch d := dest.(type) {
	case *int64:
		*d = v
	case *int:
		if int64(int(v)) != v {
			return fmt.Errorf("value %d out of range for %T", v, dest)
		}
		*d = int(v)
	case *int32:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("value %d out of range for %T", v, dest)
		}
		*d = int32(v)
	case *float64:
		*d = float64(v)
	case *string:
		*d = strconv.FormatInt(v, 10)
	case *[]byte:
		*d = strconv.AppendInt((*d)[:0], v, 10)
	default:
		return badDest(dest)
	}
	return nil
}

// fromFloat stores f, a float of bitSize bits; an integer dest takes it only
// when it has no fraction (as its text form then parses as an integer).
func fromFloat(dest any, f float64, bitSize int) error {
	switch d := dest.(type) {
	case *float64:
		*d = f
	case *string:
		*d = strconv.FormatFloat(f, 'g', -1, bitSize)
	case *[]byte:
		*d = strconv.AppendFloat((*d)[:0], f, 'g', -1, bitSize)
	case *int64, *int, *int32:
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return fmt.Errorf("cannot scan %v into %T", f, dest)
		}
		return fromInt(dest, int64(f))
	default:
		return badDest(dest)
	}
	return nil
}

func badDest(dest any) error {
	return fmt.Errorf("unsupported Scan destination %T (want *int64, *int, *int32, *float64, *string, *[]byte or a Scanner)", dest)
}
