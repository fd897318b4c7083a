package sizing

import (
	"os"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/topology"
)

// checkParsedVM is what every VM the parsers accept satisfies; and CheckVM
// against the seed host never panics on it.
func checkParsedVM(t *testing.T, in string, vm VM, h topology.Host) {
	t.Helper()
	if strings.TrimSpace(vm.Name) == "" || vm.VCPU < 1 || vm.Memory < 0 || vm.CoresPerSocket < 0 || vm.Busy < 0 || vm.Busy > 1 {
		t.Fatalf("%q parsed to %+v", in, vm)
	}
	p := CheckVM(h, vm)
	if len(p.Checks) == 0 {
		t.Fatalf("%q: CheckVM gave no checks: %+v", in, p)
	}
}

func fuzzHost(f *testing.F) topology.Host {
	b, err := os.ReadFile("../topology/testdata/seed-host.yaml")
	if err != nil {
		f.Fatal(err)
	}
	h, err := topology.Parse(b, "seed-host.yaml")
	if err != nil {
		f.Fatal(err)
	}
	return h
}

// FuzzParseVMSpec: --vm never panics; an accepted VM is sane and can be
// checked.
func FuzzParseVMSpec(f *testing.F) {
	for _, s := range []string{
		"db:vcpu=16,mem=96GB", "db:vcpu=16,mem=96GiB,cps=8,hotadd,busy=0.85", "db:vcpu=4,busy=85%", "db", ":vcpu=4",
		"db:vcpu=x", "db:vcpu=-3", "db:vcpu=4,frob=1", "db:vcpu=4,,", "db:vcpu=99999999999999999999", "db:vcpu=2147483647,mem=8EiB",
		"db:vcpu=4,busy=NaN", "db:vcpu=4,hotadd=maybe", "db:VCPU=4,Mem=1G", "a:b:c", "db:vcpu=4,cps=0",
	} {
		f.Add(s)
	}
	h := fuzzHost(f)
	f.Fuzz(func(t *testing.T, s string) {
		vm, err := ParseVMSpec(s)
		if err != nil {
			if strings.Contains(err.Error(), "%!") && !strings.Contains(s, "%!") {
				t.Fatalf("ParseVMSpec(%q): malformed message %q", s, err)
			}
			return
		}
		checkParsedVM(t, s, vm, h)
	})
}

// FuzzParseVMs: --vms files never panic the parser; every VM of an accepted
// list is sane, can be checked, and has a name of its own.
func FuzzParseVMs(f *testing.F) {
	for _, s := range []string{
		"- name: db1\n  vcpu: 24\n  memory: 96GB\n  busy: 0.85\n- name: db2\n  vcpu: 8\n",
		"- vcpu: 4\n- vcpu: 4\n", "- name: a\n  vcpu: 0\n", "garbage: [\n", "", "[]", "- name: a\n  vcpu: [1, 2]\n",
		"- name: a\n  vcpu: 4\n- name: a\n  vcpu: 4\n", "- name: a\n  vcpu: 4\n  cores_per_socket: 2\n  cpu_hot_add: true\n",
		"- {name: x, vcpu: 1e3}\n", "- name: &a x\n  vcpu: *a\n", "- ? [a]\n  : 1\n",
	} {
		f.Add([]byte(s))
	}
	h := fuzzHost(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		vms, err := ParseVMs(b, "vms.yaml")
		if err != nil {
			return
		}
		if len(vms) == 0 {
			t.Fatalf("ParseVMs(%q): no VMs and no error", b)
		}
		seen := map[string]bool{}
		for _, vm := range vms {
			checkParsedVM(t, string(b), vm, h)
			if seen[vm.Name] {
				t.Fatalf("ParseVMs(%q): %s twice", b, vm.Name)
			}
			seen[vm.Name] = true
		}
	})
}
