package result_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// FuzzDecode: Decode never panics; it refuses with ErrSchema or returns a run
// that encodes, and whose encoding is a fixed point of Decode+Encode.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := result.Encode(&buf, fullRun(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	for _, s := range []string{
		``, `null`, `{}`, `{"schema_version":1}`, `{"schema_version":2}`, `{"schema_version":0}`,
		`{"schema_version":1,"started":"2025-01-02T03:04:05+01:00","options":{"a":[1,{"b":null}]}}`,
		`{"schema_version":1,"summary":{"errors_by_class":{"deadlock":1}},"warmup":null}`,
		`[1,2,3]`, `"x"`,
		`{"schema_version":1,"workload":"w","w":{"a":[1,"<b>"]},"instances":[{"w":2},{},{"w":null}],"figures":{"headline":[{"name":"x","value":null}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := result.Decode(bytes.NewReader(in))
		if err != nil {
			if !errors.Is(err, result.ErrSchema) {
				t.Fatalf("error %v does not wrap ErrSchema", err)
			}
			if r != nil {
				t.Fatal("run returned with an error")
			}
			return
		}
		if r == nil {
			t.Fatal("nil run and nil error")
		}
		if r.SchemaVersion < 1 || r.SchemaVersion > result.SchemaVersion {
			t.Fatalf("accepted schema_version %d", r.SchemaVersion)
		}
		var a bytes.Buffer
		if err := result.Encode(&a, r); err != nil {
			// A file Decode accepts must be writable again (e.g. re-saved
			// after analysis).
			t.Fatalf("Encode(Decode(in)) = %v", err)
		}
		r2, err := result.Decode(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(in))) = %v\n%s", err, a.Bytes())
		}
		var b bytes.Buffer
		if err := result.Encode(&b, r2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("re-encoding is not stable:\n%s\nvs\n%s", a.Bytes(), b.Bytes())
		}
	})
}
