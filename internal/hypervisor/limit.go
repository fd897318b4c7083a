package hypervisor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line of esxtop batch output read: 8 MiB. A line is
// one sample of every counter the host exported (its header names them);
// about 20,000 columns, a host of 1,500 VMs, make a header of about 1 MiB,
// so real files fit several times over. A longer line (a device such as
// /dev/zero, a file that is not esxtop's) is refused rather than held in
// memory whole.
const MaxLine = 8 << 20

// maxCSVLine is the longest line of the generic CSV (time, metric, value).
const maxCSVLine = 1 << 20

// MaxSamples is the most samples a file may hold: 2^19, 30 days of esxtop's
// 5 s samples, about 40 MB in memory. Past it (esxtop: rows; the generic
// CSV: six rows a sample) a file, or an endless stream of rows, is refused.
const MaxSamples = 1 << 19

// MaxFields is the most fields a line may have: 2^18. esxtop exports about
// 20,000 counters a 1 MiB line; a line of a quarter of a million fields is
// no file of either kind, and encoding/csv would hold an index and a string
// header per field (24 bytes each: a line of 8 MiB of commas would take
// over 150 MiB).
const MaxFields = 1 << 18

var comma = []byte{','}

// ErrTooLong is matched (errors.Is) by the refusal of an input with a line
// over its cap or more rows than MaxSamples.
var ErrTooLong = errors.New("too long")

// tooLong is such a refusal: its message alone, matching ErrTooLong.
type tooLong string

func (e tooLong) Error() string        { return string(e) }
func (e tooLong) Is(target error) bool { return target == ErrTooLong }

// lineLimit passes its reader through, failing with ErrTooLong once a line
// passes max bytes or MaxFields fields or the lines pass maxLines, so that a reader above it
// (encoding/csv, which holds a whole line) never holds more than max.
type lineLimit struct {
	r            io.Reader
	max          int
	maxLines     int
	line, inLine int    // lines begun, bytes of the current one
	commas       int    // separators in the current line
	hint         string // what the input is not ("an esxtop batch file")
	err          error
}

// newLineLimit limits r to lines of max bytes and maxLines lines; hint
// says what an input refused is not.
func newLineLimit(r io.Reader, max, maxLines int, hint string) *lineLimit {
	return &lineLimit{r: r, max: max, maxLines: maxLines, line: 1, hint: hint}
}

func (l *lineLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	// Never read more than the current line may still take, so that the
	// bytes read past the cap are none.
	if room := l.max + 1 - l.inLine; len(p) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	for rest := p[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		seg := rest
		if i >= 0 {
			seg = rest[:i]
		}
		if l.commas += bytes.Count(seg, comma); l.commas >= MaxFields {
			l.err = tooLong(fmt.Sprintf("line %d has more than %d fields: not %s?", l.line, MaxFields, l.hint))
			return 0, l.err
		}
		if i < 0 {
			l.inLine += len(rest)
			break
		}
		l.line++
		l.inLine, l.commas = 0, 0
		rest = rest[i+1:]
	}
	switch {
	case l.inLine > l.max:
		l.err = tooLong(fmt.Sprintf("line %d longer than %d MiB: not %s?", l.line, l.max>>20, l.hint))
	case l.line > l.maxLines:
		l.err = tooLong(fmt.Sprintf("more than %d lines (the most samples read is %d)", l.maxLines, MaxSamples))
	}
	if l.err != nil {
		return 0, l.err
	}
	return n, err
}
