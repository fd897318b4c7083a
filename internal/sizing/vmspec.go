package sizing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rightsize/rightsize/internal/topology"
)

// ParseVMSpec parses a VM given on the command line:
//
//	NAME:vcpu=16,mem=96GB[,cps=8][,hotadd][,busy=0.85]
//
// mem takes the sizes topology.ParseBytes does (GB decimal, GiB binary);
// cps is cores per socket as configured; hotadd means CPU hot-add is on;
// busy is the peak busy share of its vCPUs (0..1, or a percentage such as
// 85%) for the consolidation what-if.
func ParseVMSpec(s string) (VM, error) {
	name, rest, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return VM{}, fmt.Errorf("vm %q: want NAME:vcpu=N[,mem=SIZE][,cps=N][,hotadd][,busy=0.8]", s)
	}
	vm := VM{Name: name}
	var errs []error
	badVCPU := false // already reported: valid would add "vcpu 0"
	seen := map[string]bool{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.ToLower(k)
		if err := once(seen, k); err != nil {
			errs = append(errs, fmt.Errorf("vm %s: %w", name, err))
			continue
		}
		if err := vm.set(k, v); err != nil {
			errs = append(errs, fmt.Errorf("vm %s: %w", name, err))
			badVCPU = badVCPU || k == "vcpu" || k == "vcpus"
		}
	}
	if err := vm.valid(); err != nil && !badVCPU {
		errs = append(errs, fmt.Errorf("vm %s: %w", name, err))
	}
	return vm, errors.Join(errs...)
}

// MaxVMMemory is the most memory the planner gives one VM: 1 PiB (vSphere 8
// allows 24 TB), so that sizes stay far from the int64 range.
const MaxVMMemory = 1 << 50

// settingNames maps each name of a VM setting to the one errors use.
var settingNames = map[string]string{"vcpu": "vcpu", "vcpus": "vcpu", "mem": "mem", "memory": "mem",
	"cps": "cps", "cores_per_socket": "cps", "hotadd": "hotadd", "cpu_hot_add": "hotadd", "busy": "busy"}

// once refuses a setting given a second time, under either of its names
// (the last would silently win).
func once(seen map[string]bool, k string) error {
	name, ok := settingNames[k]
	if !ok {
		return nil // set reports it
	}
	if seen[name] {
		return fmt.Errorf("%s given twice: give each setting once", name)
	}
	seen[name] = true
	return nil
}

func (vm *VM) set(k, v string) error {
	switch k {
	case "vcpu", "vcpus":
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("vcpu %q: want a whole number", v)
		}
		if n > MaxVCPU {
			return fmt.Errorf("vcpu %d: at most %d (the most vCPUs a hypervisor gives one VM)", n, MaxVCPU)
		}
		vm.VCPU = n
	case "mem", "memory":
		b, err := ParseMemory(v)
		if err != nil {
			return err
		}
		vm.Memory = b
	case "cps", "cores_per_socket":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxVCPU {
			return fmt.Errorf("cps %q: want a whole number of cores per socket, 1 to at most %d", v, MaxVCPU)
		}
		vm.CoresPerSocket = n
	case "hotadd", "cpu_hot_add":
		vm.HotAdd = v == "" || v == "true" || v == "on" || v == "yes"
		if !vm.HotAdd && v != "false" && v != "off" && v != "no" {
			return fmt.Errorf("hotadd %q: want true or false", v)
		}
	case "busy":
		pct := strings.HasSuffix(v, "%")
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if pct {
			f /= 100
		}
		if err != nil || !(f > 0 && f <= 1) {
			return fmt.Errorf("busy %q: want a share above 0 and at most 1 (or a percentage up to 100%%)", v)
		}
		vm.Busy = f
	case "":
		return errors.New("an empty setting")
	default:
		return fmt.Errorf("unknown setting %q (vcpu, mem, cps, hotadd, busy)", k)
	}
	return nil
}

func (vm VM) valid() error {
	if vm.VCPU < 1 {
		return fmt.Errorf("vcpu %d: want 1 or more", vm.VCPU)
	}
	return nil
}

// MaxVMsFile is the most a VM list file may weigh: 1 MiB, some ten
// thousand VMs; a larger input (or one that never ends) is refused.
const MaxVMsFile = 1 << 20

// ReadVMs reads a VM list file from r (see ParseVMs), reading at most
// MaxVMsFile+1 bytes of it; name names it in errors.
func ReadVMs(r io.Reader, name string) ([]VM, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxVMsFile+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case len(b) > MaxVMsFile:
		return nil, fmt.Errorf("%s: larger than %d MiB: not a VM list", name, MaxVMsFile>>20)
	}
	return ParseVMs(b, name)
}

// ParseVMs reads a VM list file (YAML): a sequence of mappings with the
// keys name, vcpu, memory, cores_per_socket, cpu_hot_add and busy, as in
//
//   - name: db1
//     vcpu: 24
//     memory: 96GB
//     busy: 0.85
//
// name names the file in errors.
func ParseVMs(b []byte, name string) ([]VM, error) {
	var raw []map[string]yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: want a list of VMs (- name: db1, vcpu: 16, memory: 96GB): %w", name, err)
	}
	var vms []VM
	var errs []error
	seen := map[string]bool{}
	for i, m := range raw {
		vm := VM{Name: fmt.Sprintf("vm%d", i+1)}
		if n, ok := m["name"]; ok {
			if nm := strings.TrimSpace(n.Value); n.Kind == yaml.ScalarNode && nm != "" {
				vm.Name = nm
			} else {
				errs = append(errs, fmt.Errorf("%s: line %d: %s: name: want a name (or no name key: %s)", name, n.Line, vm.Name, vm.Name))
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		badVCPU := false
		seenKey := map[string]bool{}
		for _, k := range keys {
			node := m[k]
			if k == "name" {
				continue
			}
			if err := once(seenKey, k); err != nil {
				errs = append(errs, fmt.Errorf("%s: line %d: %s: %w", name, node.Line, vm.Name, err))
				continue
			}
			if err := vm.set(k, node.Value); err != nil {
				errs = append(errs, fmt.Errorf("%s: line %d: %s: %w", name, node.Line, vm.Name, err))
				badVCPU = badVCPU || k == "vcpu" || k == "vcpus"
			}
		}
		if err := vm.valid(); err != nil && !badVCPU {
			errs = append(errs, fmt.Errorf("%s: %s: %w", name, vm.Name, err))
		}
		if seen[vm.Name] {
			errs = append(errs, fmt.Errorf("%s: VM %s is listed twice", name, vm.Name))
		}
		seen[vm.Name] = true
		vms = append(vms, vm)
	}
	if len(vms) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: no VMs listed", name))
	}
	return vms, errors.Join(errs...)
}

// ParseMemory reads a VM's memory (96GB, 128GiB), at most MaxVMMemory.
func ParseMemory(v string) (int64, error) {
	b, err := topology.ParseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("mem: %w", err)
	}
	if b > MaxVMMemory {
		return 0, fmt.Errorf("mem %s: at most 1 PiB", v)
	}
	return b, nil
}
