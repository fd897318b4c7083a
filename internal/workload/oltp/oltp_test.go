package oltp

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
)

func allWorkloads() []*Workload {
	return []*Workload{NewReadWrite(), NewReadOnly(), NewWriteOnly(), NewPointSelect(),
		NewUpdateIndex(), NewUpdateNonIndex(), NewInsert(), NewDelete()}
}

func TestFlagsAndValidate(t *testing.T) {
	w := NewReadWrite()
	fs := pflag.NewFlagSet("oltp", pflag.ContinueOnError)
	w.BindFlags(fs)
	for _, name := range []string{"tables", "table-size", "range-size", "point-selects", "simple-ranges",
		"sum-ranges", "order-ranges", "distinct-ranges", "index-updates", "non-index-updates",
		"delete-inserts", "range-selects", "skip-trx", "auto-inc", "rand-type", "rand-pareto-h",
		"rand-zipfian-exp", "rand-spec-pct", "rand-spec-res", "create-secondary", "create-table-options"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag --%s missing", name)
		}
	}
	if got := fs.Lookup("rand-type").DefValue; got != "special" {
		t.Errorf("--rand-type default %s, want special (sysbench 1.0)", got)
	}
	if err := fs.Parse([]string{"--tables=0", "--table-size=-1", "--rand-type=normal", "--point-selects=-2", "--rand-pareto-h=2"}); err != nil {
		t.Fatal(err)
	}
	err := w.Validate()
	if err == nil {
		t.Fatal("bad options accepted")
	}
	for _, want := range []string{"--tables", "--table-size", "--rand-type", "--point-selects", "rand-pareto-h"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error does not mention %s: %v", want, err)
		}
	}
	tg, err := w.ParseTarget("sqlite:"+filepath.Join(t.TempDir(), "x.db"), workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "--tables") {
		t.Errorf("a target of a workload with bad options opened: %v", err)
	}
}

// optionsMap is o keyed by its JSON names (the result's keys), each value
// of its Go type.
func optionsMap(o any) map[string]any {
	m := map[string]any{}
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		m[name] = v.Field(i).Interface()
	}
	return m
}

func TestDefaultsMatchSysbench(t *testing.T) {
	o := optionsMap(NewReadWrite().Options())
	want := map[string]any{
		"tables": 1, "table-size": int64(10000), "range-size": int64(100), "point-selects": 10,
		"simple-ranges": 1, "sum-ranges": 1, "order-ranges": 1, "distinct-ranges": 1,
		"index-updates": 1, "non-index-updates": 1, "delete-inserts": 1, "range-selects": true,
		"skip-trx": false, "auto-inc": true, "rand-type": "special", "rand-spec-pct": 1,
		"rand-spec-res": 75, "rand-pareto-h": 0.2, "rand-zipfian-exp": 0.8,
	}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("%s = %v (%T), want %v", k, o[k], o[k], v)
		}
	}
	if optionsMap(NewPointSelect().Options())["point-selects"] != 1 {
		t.Error("oltp_point_select runs one point select, as sysbench")
	}
}

func TestOpsAndNames(t *testing.T) {
	kinds := map[string]workload.OpKind{}
	for _, w := range allWorkloads() {
		m := w.Meta()
		if !strings.HasPrefix(m.Name, "oltp_") || !strings.Contains(m.Long, m.Name) || m.Event != "transaction" {
			t.Errorf("%s: bad description", m.Name)
		}
		seen := map[string]bool{}
		for _, o := range m.Ops {
			if seen[o.Name] {
				t.Errorf("%s: op %s twice", m.Name, o.Name)
			}
			seen[o.Name] = true
			if k, ok := kinds[o.Name]; ok && k != o.Kind {
				t.Errorf("op %s has two kinds", o.Name)
			}
			kinds[o.Name] = o.Kind
		}
	}
	want := map[string]workload.OpKind{
		"begin": workload.Other, "commit": workload.Other, "point_select": workload.Read,
		"simple_range": workload.Read, "sum_range": workload.Read, "order_range": workload.Read,
		"distinct_range": workload.Read, "index_update": workload.Write, "non_index_update": workload.Write,
		"delete": workload.Write, "insert": workload.Write,
	}
	for n, k := range want {
		if kinds[n] != k {
			t.Errorf("op %s kind %v, want %v", n, kinds[n], k)
		}
	}
}

func TestParseTarget(t *testing.T) {
	w := NewReadWrite()
	for i, want := range []string{"sqlite:rightsize-data/sbtest.db", "sqlite:rightsize-data/sbtest-1.db", "sqlite:rightsize-data/sbtest-2.db"} {
		tg, err := w.ParseTarget("", workload.TargetOptions{Index: i})
		if err != nil || tg.String() != want {
			t.Errorf("default target %d = %v, %v; want %s", i, tg, err, want)
		}
	}
	tg, err := w.ParseTarget("sqlite:/tmp/x.db", workload.TargetOptions{Index: 3})
	if err != nil || tg.String() != "sqlite:/tmp/x.db" {
		t.Errorf("explicit target = %v, %v", tg, err)
	}
	_, err = w.ParseTarget("nosuch://u:hunter2@h/db", workload.TargetOptions{})
	if !errors.Is(err, dialect.ErrBadTarget) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad scheme: %v", err)
	}
}
