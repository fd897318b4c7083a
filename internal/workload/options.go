package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Record returns a workload's typed options (Workload.Options) as the
// result records them (result.Run.Options): the keys and values of their
// JSON form. Numbers come back as json.Number, written as they were (an
// int64 stays exact, and prints as it did).
func Record(options any) (map[string]any, error) {
	b, err := json.Marshal(options)
	if err != nil {
		return nil, fmt.Errorf("the workload's options: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("the workload's options: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// ReadOptions reads the options a result recorded (result.Run.Options)
// into into, a pointer to the workload's typed options: the keys its type
// has replace its values, the others are left as they are (what the result
// does not record keeps into's value, and keys of other kinds, such as a
// sweep's step, are ignored).
func ReadOptions(recorded map[string]any, into any) error {
	b, err := json.Marshal(recorded)
	if err != nil {
		return fmt.Errorf("options in the result: %w", err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("options in the result: %w", err)
	}
	return nil
}

// Options describes the options of a typed value (a struct, as
// Workload.Options returns it) from its exported fields: each field's name
// is its JSON key, and a field tagged `data:"true"` shapes the loaded data
// (Option.Data). Fields the JSON form leaves out (json:"-") are not listed.
func OptionsOf(v any) []Option {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []Option
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out = append(out, Option{Name: name, Type: f.Type.Kind().String(), Data: f.Tag.Get("data") == "true"})
	}
	return out
}
