package custom

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// stepsFile's transaction reads a row's v into got and, while got is above
// 3, takes one off; at 3 it sets it to got + 10 through a variable; each
// event sleeps 20 ms.
const stepsFile = `name: steps
tables: [{name: a, rows: 1, columns: [{name: id, type: int, gen: {type: seq}}, {name: v, type: int, gen: {type: int, min: 5, max: 5}}], primary_key: [id]}]
params: {k: {type: int, min: 1, max: 1}}
transactions:
  - name: x
    statements:
      - set: {target: ":k"}
      - sql: SELECT v FROM a WHERE id = :target
        into: [got]
      - if: ":got > 3"
        then:
          - UPDATE a SET v = v - 1 WHERE id = :target
        else:
          - set: {back: ":got + 10"}
          - UPDATE a SET v = :back WHERE id = :k
      - sleep: 20ms
`

func stepsInstance(t *testing.T, text string) *Instance {
	t.Helper()
	file := filepath.Join(t.TempDir(), "steps.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	in := testenv.Open(t, w, "sqlite:"+filepath.Join(t.TempDir(), "s.db")).(*Instance)
	if err := in.Prepare(context.Background(), workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	return in
}

// TestStepsRun: a file's set, if and sleep run as written: the row's value
// follows the if's two branches event after event, and each event lasts
// at least its sleep.
func TestStepsRun(t *testing.T) {
	ctx := context.Background()
	in := stepsInstance(t, stepsFile)
	v, err := in.NewVU(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	want := int64(5)
	c := connect(t, in)
	for i := range 14 {
		start := time.Now()
		m := &meter{}
		if err := v.Event(ctx, m); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if d := time.Since(start); d < 20*time.Millisecond {
			t.Errorf("event %d took %v, less than its sleep", i, d)
		}
		if want > 3 {
			want--
		} else {
			want += 10
		}
		if got := count(t, c, "SELECT v FROM a WHERE id = 1"); got != want {
			t.Fatalf("after event %d v = %d, want %d", i, got, want)
		}
	}
}

// TestStepError: an expression that fails at run time fails the event with
// the file's name and the set's line, and rolls the transaction back.
func TestStepError(t *testing.T) {
	ctx := context.Background()
	text := strings.Replace(stepsFile, `set: {back: ":got + 10"}`, `set: {back: ":got / (:got - 3)"}`, 1)
	in := stepsInstance(t, text)
	v, err := in.NewVU(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var last error
	for range 3 { // 5 -> 4 -> 3, then 3 / 0
		last = v.Event(ctx, &meter{})
	}
	var se *ScriptError
	if !errors.As(last, &se) || !strings.HasSuffix(last.Error(), "steps.yaml:14: division by zero") {
		t.Fatalf("error %v, want steps.yaml:14: division by zero", last)
	}
	if got := count(t, connect(t, in), "SELECT v FROM a WHERE id = 1"); got != 3 {
		t.Errorf("v = %d after the failed event, want 3", got)
	}
}

func connect(t *testing.T, in *Instance) dialect.Conn {
	t.Helper()
	c, err := in.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSampleRangeOnEmptyTable: a sample whose column holds no values (a
// copy with an empty table) draws from its min and max; without them the
// virtual user refuses to start and says what to add (issue 49: a capture
// replayed on a fresh copy stopped at once).
func TestSampleRangeOnEmptyTable(t *testing.T) {
	ctx := context.Background()
	const file = `name: s
tables: [{name: e, rows: 0, columns: [{name: id, type: int, null: true}]}]
params: {k: {type: sample, column: e.id, min: 5, max: 7}}
transactions: [{name: x, autocommit: true, statements: ["INSERT INTO e (id) VALUES (:k)"]}]
`
	in := stepsInstance(t, file)
	v, err := in.NewVU(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for range 20 {
		if err := v.Event(ctx, &meter{}); err != nil {
			t.Fatal(err)
		}
	}
	c := connect(t, in)
	if n, lo, hi := count(t, c, "SELECT count(*) FROM e"), count(t, c, "SELECT min(id) FROM e"), count(t, c, "SELECT max(id) FROM e"); n != 20 || lo < 5 || hi > 7 || lo == hi {
		t.Errorf("%d rows from %d to %d, want 20 drawn from 5 to 7", n, lo, hi)
	}
	bare := stepsInstance(t, strings.Replace(file, ", min: 5, max: 7", "", 1))
	if _, err := bare.NewVU(ctx, 0, 1); err == nil || !strings.Contains(err.Error(), "nothing to sample (give the sample min and max") {
		t.Errorf("a sample of an empty column without a range: %v", err)
	}
}
