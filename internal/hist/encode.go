package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The V2 compressed encoding (HdrHistogram's log format), written here with
// pooled compressors: hdrhistogram-go's Encode makes a new zlib writer at
// best compression for every histogram, about 1.2 MB of garbage each, which
// made a run's once-a-second checkpoint the largest allocator of a
// 1,000-VU run (its collections came every 12 s instead of every 63 s).
// The output is byte for byte Encode's (a test holds it to that).
//
// Layout: base64 of [compressed cookie, int32 length of the zlib data, the
// zlib data of [cookie, int32 payload length, int32 normalizing index offset
// (0), int32 significant digits, int64 lowest, int64 highest, float64
// integer-to-double ratio, payload]]; all big-endian. The payload is the
// counts up to the largest value's, each a ZigZag LEB128 (at most 9 bytes,
// the 9th holding 8 bits) and a run of two or more zero counts as its
// negated length.
const (
	v2Cookie           int32 = 0x1c849303 | 0x10
	v2CompressedCookie int32 = 0x1c849304 | 0x10
)

var (
	zwriters = sync.Pool{New: func() any {
		w, _ := zlib.NewWriterLevel(nil, zlib.BestCompression) // the level is valid
		return w
	}}
	buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// appendZigZag appends v as a ZigZag LEB128-64b9B.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f)|0x80)
		u >>= 7
	}
	return append(b, byte(u)) // the 9th byte: all 8 bits
}

// encodeV2 encodes the counts of s (a histogram exported from an
// hdr.Histogram) in the V2 compressed format.
func encodeV2(s *hdr.Snapshot) (string, error) {
	limit := 1 // an empty histogram encodes its first (zero) count
	for i := len(s.Counts) - 1; i >= 0; i-- {
		if s.Counts[i] != 0 {
			limit = i + 1
			break
		}
	}
	raw := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(raw)
	raw.Reset()
	var head [40]byte
	payload := head[:0]
	payload = binary.BigEndian.AppendUint32(payload, uint32(v2Cookie))
	payload = binary.BigEndian.AppendUint32(payload, 0) // the payload length, below
	payload = binary.BigEndian.AppendUint32(payload, 0) // normalizing index offset
	payload = binary.BigEndian.AppendUint32(payload, uint32(s.SignificantFigures))
	payload = binary.BigEndian.AppendUint64(payload, uint64(s.LowestTrackableValue))
	payload = binary.BigEndian.AppendUint64(payload, uint64(s.HighestTrackableValue))
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	payload = binary.BigEndian.AppendUint64(payload, math.Float64bits(ratio))
	raw.Write(payload)
	var zz [9]byte
	for i := 0; i < limit; {
		c := s.Counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && s.Counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				raw.Write(appendZigZag(zz[:0], -zeros))
				continue
			}
		}
		raw.Write(appendZigZag(zz[:0], c))
	}
	b := raw.Bytes()
	binary.BigEndian.PutUint32(b[4:8], uint32(len(b)-40))

	z := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(z)
	z.Reset()
	var pre [8]byte
	z.Write(pre[:]) // the compressed cookie and length, below
	w := zwriters.Get().(*zlib.Writer)
	defer zwriters.Put(w)
	w.Reset(z)
	if _, err := w.Write(b); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	out := z.Bytes()
	binary.BigEndian.PutUint32(out[0:4], uint32(v2CompressedCookie))
	binary.BigEndian.PutUint32(out[4:8], uint32(len(out)-8))
	return base64.StdEncoding.EncodeToString(out), nil
}
