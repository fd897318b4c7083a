package hypervisor

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// esxtop's batch output (esxtop -b) is perfmon's CSV: a header row whose
// first column is "(PDH-CSV 4.0) (TZ)(BIAS)" (BIAS: minutes to add to the
// local times to get UTC) and whose others name counters as
// \\HOST\OBJECT(INSTANCE)\COUNTER, then one row per sample, its time first
// ("MM/DD/YYYY HH:MM:SS", local) and every value quoted. A VM is the group
// "Group Cpu(GID:NAME)", whose percentages are summed over its worlds; its
// vCPUs are the worlds "Vcpu(GID:NAME:WID:vcpu-N...)".

// pdhHeader matches the first column's header and captures the bias.
var pdhHeader = regexp.MustCompile(`^\(PDH-CSV 4\.0\) \(([^)]*)\)\((-?\d+)\)$`)

// vcpuWorld splits a Vcpu instance "GID:NAME:WID:WORLD" (the world's name
// may itself hold colons: "vcpu-0:NAME").
var vcpuWorld = regexp.MustCompile(`^(\d+):(.+?):(\d+):(.*)$`)

// groupCounters are the Group Cpu counters read, by metric.
var groupCounters = map[string]Metric{"% Used": Used, "% Ready": Ready, "% CoStop": CoStop, "% Max Limited": MaxLimited, "% Wait": Wait}

// pdhTime is the layout of a sample's time.
const pdhTime = "01/02/2006 15:04:05"

// column is a counter's parts.
type column struct{ object, instance, counter string }

// parseColumn splits \\HOST\OBJECT(INSTANCE)\COUNTER; false for anything
// else.
func parseColumn(h string) (column, bool) {
	rest, ok := strings.CutPrefix(h, `\\`)
	if !ok {
		return column{}, false
	}
	_, rest, ok = strings.Cut(rest, `\`) // the host
	if !ok {
		return column{}, false
	}
	i := strings.LastIndex(rest, `\`)
	if i < 0 {
		return column{}, false
	}
	obj, counter := rest[:i], rest[i+1:]
	open, end := strings.IndexByte(obj, '('), strings.LastIndexByte(obj, ')')
	if open < 0 || end < open {
		return column{object: obj, counter: counter}, true
	}
	return column{object: obj[:open], instance: obj[open+1 : end], counter: counter}, true
}

// ReadESXTop reads esxtop batch output for the VM named vm (as the host
// names its group), keeping only its columns and the host's physical CPU
// utilisation. vcpus, when above 0, is the VM's vCPU count, for a file
// without per-vCPU worlds; else it is counted from them, and a vcpus that
// contradicts the count is refused (ErrVCPUs). The group's percentages are
// divided by it (VMware's guidance: %RDY and %CSTP per vCPU).
//
// It streams r: a line longer than MaxLine, or more than MaxSamples rows,
// is refused (ErrTooLong, with ErrFormat) without reading on.
func ReadESXTop(r io.Reader, vm string, vcpus int) (*Series, error) {
	cr := csv.NewReader(newLineLimit(r, MaxLine, MaxSamples+1, "an esxtop batch file"))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, ErrTooLong) {
		return nil, fmt.Errorf("%w: esxtop: %w", ErrFormat, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: esxtop: no header row: %v", ErrFormat, err)
	}
	header = slices.Clone(header) // the reader reuses its record
	m := pdhHeader.FindStringSubmatch(strings.TrimPrefix(header[0], "\ufeff"))
	if m == nil {
		return nil, fmt.Errorf("%w: esxtop: the first column is %q, not \"(PDH-CSV 4.0) (TZ)(BIAS)\": is this esxtop -b output?", ErrFormat, clip(header[0]))
	}
	bias, _ := strconv.Atoi(m[2])
	cols, vms, counted := selectColumns(header, vm)
	if !slices.Contains(vms, vm) {
		return nil, fmt.Errorf("%w: %q: the file's VMs (Group Cpu) are %s", ErrNoVM, vm, listVMs(vms))
	}
	switch {
	case vcpus > 0 && counted > 0 && vcpus != counted:
		return nil, fmt.Errorf("%w: --vcpus %d, but the file shows %d vCPUs of VM %q (its vcpu-N worlds): leave --vcpus out, or give %d", ErrVCPUs, vcpus, counted, vm, counted)
	case vcpus <= 0:
		vcpus = counted
	}
	if vcpus <= 0 {
		return nil, fmt.Errorf("%w: esxtop: the file has no per-vCPU worlds (Vcpu(...:vcpu-N...)) of VM %q to count its vCPUs: give --vcpus", ErrFormat, vm)
	}
	s := &Series{Source: "esxtop", VM: vm, VCPUs: vcpus}
	keys := make([]int, 0, len(cols))
	for i := range cols {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: esxtop: %w", ErrFormat, err)
		}
		at, err := time.Parse(pdhTime, rec[0])
		if err != nil {
			return nil, fmt.Errorf("%w: esxtop: row %d: time %q: want MM/DD/YYYY HH:MM:SS", ErrFormat, line, clip(rec[0]))
		}
		x := Sample{At: at.Add(time.Duration(bias) * time.Minute), V: nan()}
		for _, i := range keys {
			if rec[i] == "" {
				continue // a group that did not exist yet, or any more
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: esxtop: row %d: %s: %q is not a number", ErrFormat, line, clip(header[i]), clip(rec[i]))
			}
			met := cols[i]
			if met != HostCPU {
				v /= float64(vcpus)
			}
			if math.IsNaN(x.V[met]) {
				x.V[met] = v
			}
		}
		s.Samples = append(s.Samples, x)
	}
	if len(s.Samples) == 0 {
		return nil, fmt.Errorf("%w: esxtop: a header and no samples", ErrFormat)
	}
	if !slices.IsSortedFunc(s.Samples, func(a, b Sample) int { return a.At.Compare(b.At) }) {
		return nil, fmt.Errorf("%w: esxtop: the samples are not in time order", ErrFormat)
	}
	return s, nil
}

// selectColumns picks from esxtop's header the columns kept, by index
// (several may feed one metric: the VM's group under each GID it had, if it
// was restarted), the VMs the file has (Group Cpu names, in order), and the
// VM's vCPUs counted from its vcpu worlds (the most of any one group).
func selectColumns(header []string, vm string) (cols map[int]Metric, vms []string, vcpus int) {
	cols = map[int]Metric{}
	seen := map[string]bool{}
	perGroup := map[string]map[string]bool{} // GID -> vCPU names
	for i, h := range header[1:] {
		c, ok := parseColumn(h)
		if !ok {
			continue
		}
		switch c.object {
		case "Physical Cpu":
			if c.instance == "_Total" && c.counter == "% Util Time" {
				cols[i+1] = HostCPU
			}
		case "Group Cpu":
			_, name, _ := strings.Cut(c.instance, ":")
			if !seen[name] {
				seen[name] = true
				vms = append(vms, name)
			}
			if met, ok := groupCounters[c.counter]; ok && name == vm {
				cols[i+1] = met
			}
		case "Vcpu":
			if w := vcpuWorld.FindStringSubmatch(c.instance); w != nil && w[2] == vm && strings.HasPrefix(w[4], "vcpu-") {
				// By group and vCPU name: a VM restarted (or moved) in the
				// capture has a group of its own vCPUs each time.
				n, _, _ := strings.Cut(w[4], ":")
				if perGroup[w[1]] == nil {
					perGroup[w[1]] = map[string]bool{}
				}
				perGroup[w[1]][n] = true
				vcpus = max(vcpus, len(perGroup[w[1]]))
			}
		}
	}
	return cols, vms, vcpus
}

// listVMs lists VM names for a message, the first 20.
func listVMs(vms []string) string {
	if len(vms) == 0 {
		return "none"
	}
	q := make([]string, 0, 20)
	for _, v := range vms[:min(20, len(vms))] {
		q = append(q, strconv.Quote(v))
	}
	s := strings.Join(q, ", ")
	if len(vms) > 20 {
		s += fmt.Sprintf(" and %d more", len(vms)-20)
	}
	return s
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
