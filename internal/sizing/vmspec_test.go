package sizing

import (
	"strings"
	"testing"
)

func TestParseVMSpec(t *testing.T) {
	vm, err := ParseVMSpec("db1:vcpu=16,mem=96GiB,cps=8,hotadd,busy=85%")
	if err != nil || vm != (VM{Name: "db1", VCPU: 16, Memory: 96 * gib, CoresPerSocket: 8, HotAdd: true, Busy: 0.85}) {
		t.Errorf("got %+v, %v", vm, err)
	}
	vm, err = ParseVMSpec("db2:vcpu=4,mem=8GB,hotadd=false,busy=0.5")
	if err != nil || vm.Memory != 8e9 || vm.HotAdd || vm.Busy != 0.5 {
		t.Errorf("got %+v, %v", vm, err)
	}
	for spec, want := range map[string]string{
		"vcpu=4":                 "want NAME:",
		"db:vcpu=x":              "vcpu \"x\"",
		"db:mem=8GB":             "vcpu 0: want 1 or more",
		"db:vcpu=4,colour=blue":  "unknown setting \"colour\"",
		"db:vcpu=4,busy=1.5":     "busy \"1.5\"",
		"db:vcpu=4,hotadd=maybe": "hotadd \"maybe\"",
		"db:vcpu=4,mem=lots":     "mem:",
	} {
		if _, err := ParseVMSpec(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", spec, err, want)
		}
	}
}

func TestParseVMs(t *testing.T) {
	vms, err := ParseVMs([]byte("- name: db1\n  vcpu: 24\n  memory: 96GiB\n  busy: 0.85\n- name: db2\n  vcpu: 12\n  cpu_hot_add: true\n"), "vms.yaml")
	if err != nil || len(vms) != 2 || vms[0].VCPU != 24 || vms[0].Memory != 96*gib || vms[0].Busy != 0.85 || !vms[1].HotAdd || vms[1].Name != "db2" {
		t.Fatalf("got %+v, %v", vms, err)
	}
	for text, want := range map[string]string{
		"name: db1": "want a list of VMs",
		"- name: a\n  vcpu: 2\n- name: a\n  vcpu: 2\n": "listed twice",
		"- name: a\n  vcpus: 2\n  ram: 4GB\n":          "line 3: a: unknown setting \"ram\"",
		"[]":                                           "no VMs listed",
	} {
		if _, err := ParseVMs([]byte(text), "vms.yaml"); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "vms.yaml") {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}
