package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// A workload's section is its own figures in its own JSON form (TPC-C's
// tpmC, mix and limits; fileio's IOPS per direction), kept for the scripts
// that read them by the workload's name: Run.Section is written at the top
// level of the result, and Instance.Section at the top level of its
// instance, under the run's workload name:
//
//	{"schema_version": 1, "workload": "tpcc", ..., "tpcc": {"tpmc": 1210.4, ...}}
//
// This package neither reads nor checks a section (it knows no workload);
// the workload's package does, and reports read Figures instead. A run
// without sections is written exactly as its fields say, with no copy; one
// with sections through a struct type made for its workload's name (below),
// which adds one field per object and costs no second copy of the document
// either.

// ErrSectionName is wrapped by the error for a workload name that cannot
// name a section: not lower-case letters, digits, '_' and '-' starting with
// a letter, or already a key of a run or an instance ("summary").
var ErrSectionName = errors.New("workload name cannot name its result section")

// ValidSectionName reports whether a workload named name can write a
// section (nil) or why not (an error wrapping ErrSectionName).
func ValidSectionName(name string) error {
	ok := name != "" && 'a' <= name[0] && name[0] <= 'z'
	for _, c := range name {
		ok = ok && ('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-')
	}
	if !ok {
		return fmt.Errorf("%w: %q: want lower-case letters, digits, '_' or '-', starting with a letter", ErrSectionName, name)
	}
	if reserved()[name] {
		return fmt.Errorf("%w: %q is already a key of a run or an instance", ErrSectionName, name)
	}
	return nil
}

// reserved holds the JSON keys of Run and Instance.
var reserved = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	for _, t := range []reflect.Type{reflect.TypeFor[Run](), reflect.TypeFor[InstancePart]()} {
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			keys[name] = true
		}
	}
	return keys
})

// plainRun is Run without its methods: what encoding/json writes field by
// field.
type plainRun Run

// hasSections tells whether r or one of its instances holds a section.
func (r *Run) hasSections() bool {
	if len(r.Section) > 0 {
		return true
	}
	for i := range r.Instances {
		if len(r.Instances[i].Section) > 0 {
			return true
		}
	}
	return false
}

// jsonView returns what encoding/json should write for r: r itself without
// its methods when it holds no section, else a copy (shallow: slices and
// maps are shared) into a struct with the sections as fields named after
// the workload.
func (r *Run) jsonView() (any, error) {
	if !r.hasSections() {
		return (*plainRun)(r), nil
	}
	if err := ValidSectionName(r.Workload); err != nil {
		return nil, err
	}
	vt := viewTypesOf(r.Workload)
	src := reflect.ValueOf(r).Elem()
	dst := reflect.New(vt.run).Elem()
	for i := range src.NumField() {
		if i != vt.instances {
			dst.Field(i).Set(src.Field(i))
			continue
		}
		ins := reflect.MakeSlice(reflect.SliceOf(vt.instance), len(r.Instances), len(r.Instances))
		for k := range r.Instances {
			from, to := reflect.ValueOf(&r.Instances[k]).Elem(), ins.Index(k)
			for j := range from.NumField() {
				to.Field(j).Set(from.Field(j))
			}
			to.Field(from.NumField()).Set(reflect.ValueOf(r.Instances[k].Section))
		}
		if r.Instances != nil {
			dst.Field(i).Set(ins)
		}
	}
	dst.Field(src.NumField()).Set(reflect.ValueOf(r.Section))
	return dst.Addr().Interface(), nil
}

// MarshalJSON writes r with its sections, as Encode does (for encoders
// other than Encode's, such as the history catalog's).
func (r Run) MarshalJSON() ([]byte, error) {
	v, err := r.jsonView()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads r and, under its workload's name, its sections and
// its instances'; every string made Printable.
func (r *Run) UnmarshalJSON(data []byte) error {
	data = printableJSON(data)
	if err := json.Unmarshal(data, (*plainRun)(r)); err != nil {
		return err
	}
	if d, ok := r.Options["file_digest"].(string); ok && r.WorkloadDigest == "" {
		r.WorkloadDigest = d // written before the digest had a field of its own
	}
	r.Section = nil
	for i := range r.Instances {
		r.Instances[i].Section = nil
	}
	if ValidSectionName(r.Workload) != nil {
		return nil // no section can be under that name
	}
	probe := reflect.New(viewTypesOf(r.Workload).probe)
	if err := json.Unmarshal(data, probe.Interface()); err != nil {
		return err
	}
	p := probe.Elem()
	r.Section = section(p.Field(0))
	ins := p.Field(1)
	for i := range min(ins.Len(), len(r.Instances)) {
		r.Instances[i].Section = section(ins.Index(i).Field(0))
	}
	return nil
}

// section returns a probed section, nil for an absent or null one.
func section(v reflect.Value) json.RawMessage {
	raw := v.Interface().(json.RawMessage)
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

// viewTypes are the struct types that write and read one workload's
// sections: run and instance are Run and Instance with one more field, the
// section under the workload's name (instance in place of Instance in run's
// field instances); probe reads the sections alone.
type viewTypes struct {
	run, instance, probe reflect.Type
	instances            int // Run's field index of Instances
}

var views sync.Map // workload name -> *viewTypes

func viewTypesOf(name string) *viewTypes {
	if v, ok := views.Load(name); ok {
		return v.(*viewTypes)
	}
	raw := reflect.TypeFor[json.RawMessage]()
	sec := reflect.StructField{Name: "WorkloadSection", Type: raw, Tag: reflect.StructTag(`json:"` + name + `,omitempty"`)}
	copyOf := func(t reflect.Type) []reflect.StructField {
		var fs []reflect.StructField
		for f := range t.Fields() {
			fs = append(fs, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
		}
		return fs
	}
	v := &viewTypes{instance: reflect.StructOf(append(copyOf(reflect.TypeFor[InstancePart]()), sec))}
	fs := copyOf(reflect.TypeFor[Run]())
	for i := range fs {
		if fs[i].Name == "Instances" {
			fs[i].Type, v.instances = reflect.SliceOf(v.instance), i
		}
	}
	v.run = reflect.StructOf(append(fs, sec))
	v.probe = reflect.StructOf([]reflect.StructField{
		{Name: "Section", Type: raw, Tag: reflect.StructTag(`json:"` + name + `"`)},
		{Name: "Instances", Type: reflect.SliceOf(reflect.StructOf([]reflect.StructField{
			{Name: "Section", Type: raw, Tag: reflect.StructTag(`json:"` + name + `"`)},
		})), Tag: `json:"instances"`},
	})
	got, _ := views.LoadOrStore(name, v)
	return got.(*viewTypes)
}
