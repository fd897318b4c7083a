package k8sjob

import (
	"bytes"
	"encoding/json"
	"fmt"

	yaml2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

// marshal writes v as the API's client library (sigs.k8s.io/yaml) writes
// an object: its JSON, read back as plain values, written as YAML by
// go.yaml.in/yaml/v2 (keys sorted, lines folded after 80 columns, text
// with a tab or trailing spaces double-quoted). yaml/v3 writes some of
// these otherwise (a multi-line text with a tab as a literal block, long
// lines unfolded), and the manifest stays byte for byte what it was.
func marshal(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var obj any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	obj, err = integers(obj)
	if err != nil {
		return nil, err
	}
	return yaml2.Marshal(obj)
}

// integers replaces the JSON numbers in v (the manifest's are integers)
// by int64s, which YAML writes unquoted.
func integers(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			n, err := integers(e)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
	case []any:
		for i, e := range v {
			n, err := integers(e)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return nil, fmt.Errorf("k8sjob: number %s is no integer", v)
		}
		return n, nil
	}
	return v, nil
}

// Decode reads one YAML document of a manifest into v (a *Job or a
// *ConfigMap) strictly: a field v's type lacks is an error.
func Decode(doc []byte, v any) error {
	var obj any
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		return err
	}
	j, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.DisallowUnknownFields()
	return d.Decode(v)
}
