package topology

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileKeys are the keys of a host description file, in the order the
// documentation gives them.
var fileKeys = []string{"name", "sockets", "cores_per_socket", "threads_per_core", "numa_nodes", "memory_per_node", "memory_total"}

// MaxFileSize is the most a host description file may weigh: 64 KiB. One
// is a dozen lines; a larger input (a device such as /dev/zero, which never
// ends) is not one, and is refused rather than read into memory.
const MaxFileSize = 64 << 10

// ErrTooLarge wraps an input over MaxFileSize; ErrRead wraps a failure to
// read it.
var (
	ErrTooLarge = errors.New("larger than 64 KiB") // MaxFileSize
	ErrRead     = errors.New("cannot read")
)

// Read reads a host description from r and parses it (Parse), reading at
// most MaxFileSize+1 bytes: a longer input fails with ErrTooLarge, a read
// that fails with ErrRead; name names it in errors.
func Read(r io.Reader, name string) (Host, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	switch {
	case err != nil:
		return Host{Source: name}, fmt.Errorf("%s: %w: %w", name, ErrRead, err)
	case len(b) > MaxFileSize:
		return Host{Source: name}, fmt.Errorf("%s: %w: not a host description (a dozen lines of sockets, cores_per_socket, ...)", name, ErrTooLarge)
	}
	return Parse(b, name)
}

// Parse reads a host description file (YAML); name is the file's name, used
// in errors and as the Host's Source. The keys:
//
//	name: db-host-1            # optional
//	sockets: 2                 # required, ≥ 1
//	cores_per_socket: 12       # required, ≥ 1: physical cores
//	threads_per_core: 2        # default 1 (no hyperthreading/SMT)
//	numa_nodes: 2              # default: one per socket
//	memory_per_node: 128GiB    # or memory_total: 256GiB, split evenly over the nodes
//
// Memory sizes are read by ParseBytes: decimal units (GB = 10^9 bytes, MB,
// TB) and binary units (GiB = 2^30 bytes, MiB, TiB) are both accepted, and a
// plain number is bytes. Note that a server sold with "256 GB" of DIMMs
// has 256 GiB. Give at most one of memory_per_node and memory_total; with
// neither, memory is unknown (0) and a note says so. memory_total must split
// evenly (to the byte) over the nodes.
//
// Unknown keys are an error naming the key, as are duplicate keys. Every
// problem is reported at once (errors.Join), each naming the file, the line
// and the key; the Host must then pass Validate.
func Parse(yamlBytes []byte, name string) (Host, error) {
	h := Host{Source: name}
	root, err := decodeHostMapping(yamlBytes, name)
	if err != nil {
		return h, err
	}
	d := &hostDoc{name: name, root: root}
	d.checkKeys()
	if v := d.value("name"); v != nil {
		if v.Kind != yaml.ScalarNode {
			d.bad(v, "name", "want a string")
		}
		h.Name = v.Value
	}
	h.Sockets = d.count("sockets", 0, true)
	h.CoresPerSocket = d.count("cores_per_socket", 0, true)
	h.ThreadsPerCore = d.count("threads_per_core", 1, false)
	h.NUMANodes = d.count("numa_nodes", h.Sockets, false)
	d.memory(&h)
	if len(d.errs) > 0 {
		return h, errors.Join(d.errs...)
	}
	if err := h.Validate(); err != nil {
		return h, prefixEach(name+": ", err)
	}
	return h, nil
}

// decodeHostMapping decodes the one YAML document of a host description
// file named name and returns its top-level mapping.
func decodeHostMapping(yamlBytes []byte, name string) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(yamlBytes))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty host description; want at least sockets and cores_per_socket", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document describing one host", name)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: line %d: want a mapping of keys (%s)", name, root.Line, strings.Join(fileKeys, ", "))
	}
	return root, nil
}

// hostDoc reads the values of a host description file's top-level mapping,
// collecting every problem in errs, each naming the file, the line and the
// key.
type hostDoc struct {
	name string     // the file's name
	root *yaml.Node // the mapping
	errs []error
}

// bad records a problem with key at node n.
func (d *hostDoc) bad(n *yaml.Node, key, format string, a ...any) {
	d.errs = append(d.errs, fmt.Errorf("%s: line %d: %s: %s", d.name, n.Line, key, fmt.Sprintf(format, a...)))
}

// checkKeys records every key given twice and every key not in fileKeys.
func (d *hostDoc) checkKeys() {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k := d.root.Content[i]
		if prev, dup := seen[k.Value]; dup {
			d.bad(k, k.Value, "given twice (first on line %d)", prev.Line)
			continue
		}
		seen[k.Value] = k
		known := false
		for _, f := range fileKeys {
			known = known || f == k.Value
		}
		if !known {
			d.errs = append(d.errs, fmt.Errorf("%s: line %d: unknown key %q (known keys: %s)", d.name, k.Line, k.Value, strings.Join(fileKeys, ", ")))
		}
	}
}

// value is the value node of key's first occurrence, nil when it is not
// given.
func (d *hostDoc) value(key string) *yaml.Node {
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		if d.root.Content[i].Value == key {
			return d.root.Content[i+1]
		}
	}
	return nil
}

// count reads key as a whole number ≥ 1; def when it is not given
// (recorded as missing when required) or not a whole number.
func (d *hostDoc) count(key string, def int, required bool) int {
	v := d.value(key)
	if v == nil {
		if required {
			d.errs = append(d.errs, fmt.Errorf("%s: %s is required", d.name, key))
		}
		return def
	}
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
		d.bad(v, key, "want a whole number, got %q", v.Value)
		return def
	}
	if n < 1 {
		d.bad(v, key, "must be at least 1, got %d", n)
	}
	return n
}

// size reads key as a memory size (ParseBytes) of more than 0 bytes, and
// whether it is given at all (0 bytes when it is not, or is bad).
func (d *hostDoc) size(key string) (int64, bool) {
	v := d.value(key)
	if v == nil {
		return 0, false
	}
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!int") {
		d.bad(v, key, "want a size such as 128GiB or 128GB, got %q", v.Value)
		return 0, true
	}
	b, err := ParseBytes(v.Value)
	if err != nil {
		d.bad(v, key, "%v", err)
		return 0, true
	}
	if b == 0 {
		d.bad(v, key, "must be more than 0")
	}
	return b, true
}

// memory sets h's MemoryPerNode from memory_per_node, or memory_total split
// evenly over h's NUMA nodes (at most one of the two given); with neither,
// memory stays unknown (0) and a note says so.
func (d *hostDoc) memory(h *Host) {
	perNode, hasPerNode := d.size("memory_per_node")
	total, hasTotal := d.size("memory_total")
	switch {
	case hasPerNode && hasTotal:
		d.bad(d.value("memory_total"), "memory_total", "give memory_per_node or memory_total, not both")
	case hasPerNode:
		h.MemoryPerNode = perNode
	case hasTotal && h.NUMANodes > 0:
		if total%int64(h.NUMANodes) != 0 {
			d.bad(d.value("memory_total"), "memory_total", "%s (%d bytes) does not split evenly over %d NUMA nodes; give memory_per_node", FormatBytes(total), total, h.NUMANodes)
		}
		h.MemoryPerNode = total / int64(h.NUMANodes)
	case !hasTotal:
		h.Notes = append(h.Notes, "the description gives no memory: memory per node unknown")
	}
}

// prefixEach puts prefix before each of the errors joined in err.
func prefixEach(prefix string, err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return fmt.Errorf("%s%w", prefix, err)
	}
	var errs []error
	for _, e := range j.Unwrap() {
		errs = append(errs, prefixEach(prefix, e))
	}
	return errors.Join(errs...)
}
