package host

import (
	"errors"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/prometheus/procfs"
)

// Mount tables and /proc/PID/cgroup as the kernel writes them.
const (
	// A hybrid host (this CI machine): v1 controllers, each its own mount,
	// and an empty v2 hierarchy.
	mountsHybrid = `30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	cgroupHybrid = "4:memory:/process_api/e8bc\n2:cpuacct:/db\n1:cpu:/db\n0::/\n"
	// A v1 host whose cpu and cpuacct share a mount (systemd's layout).
	mountsV1 = `25 24 0:22 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
33 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,cpu,cpuacct
`
	cgroupV1 = "5:cpu,cpuacct:/system.slice/mariadb.service\n1:name=systemd:/system.slice/mariadb.service\n"
	// A v2 host.
	mountsV2 = "26 21 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	cgroupV2 = "0::/system.slice/postgresql@15-main.service\n"
	// Inside a container that sees its own cgroup as the hierarchy's root
	// mount: the mount's root is the container's cgroup.
	mountsContainer = "1077 1070 0:23 /kubepods/pod1/c1 /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n"
	cgroupContainer = "0::/kubepods/pod1/c1\n"
)

// fakeProc writes a /proc with a self that has the given cgroup and mounts.
func fakeProc(t *testing.T, cgroup, mounts string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "100")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"cgroup": cgroup, "mountinfo": mounts} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("100", filepath.Join(root, "self")); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestCgroupOf(t *testing.T) {
	for name, c := range map[string]struct {
		cgroup, mounts string
		want           Cgroup
	}{
		"hybrid": {cgroupHybrid, mountsHybrid, Cgroup{Path: "/db", CPUDir: "/sys/fs/cgroup/cpu/db", AcctDir: "/sys/fs/cgroup/cpuacct/db"}},
		// cpuacct groups the tasks otherwise: its usage would be another
		// cgroup's (the host's, at its root).
		"hybrid, cpuacct elsewhere": {"2:cpuacct:/\n1:cpu:/db\n0::/\n", mountsHybrid, Cgroup{Path: "/db", CPUDir: "/sys/fs/cgroup/cpu/db"}},
		"v1":                        {cgroupV1, mountsV1, Cgroup{Path: "/system.slice/mariadb.service", CPUDir: "/sys/fs/cgroup/cpu,cpuacct/system.slice/mariadb.service", AcctDir: "/sys/fs/cgroup/cpu,cpuacct/system.slice/mariadb.service"}},
		"v2":                        {cgroupV2, mountsV2, Cgroup{Path: "/system.slice/postgresql@15-main.service", CPUDir: "/sys/fs/cgroup/system.slice/postgresql@15-main.service", V2: true}},
		"container":                 {cgroupContainer, mountsContainer, Cgroup{Path: "/kubepods/pod1/c1", CPUDir: "/sys/fs/cgroup", V2: true}},
	} {
		got, err := CgroupOf(fakeProc(t, c.cgroup, c.mounts), 0)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v (%v), want %+v", name, got, err, c.want)
		}
		got, err = CgroupOf(fakeProc(t, c.cgroup, c.mounts), 100)
		if err != nil || got != c.want {
			t.Errorf("%s by PID: %+v (%v), want %+v", name, got, err, c.want)
		}
	}
	// No cgroup hierarchy mounted, or a path outside the mount's root.
	for name, c := range map[string][2]string{
		"no mounts":    {cgroupV2, "25 24 0:22 / /sys/fs/cgroup ro - tmpfs tmpfs ro\n"},
		"outside root": {"0::/other\n", mountsContainer},
	} {
		if got, err := CgroupOf(fakeProc(t, c[0], c[1]), 0); !errors.Is(err, ErrNoCgroup) {
			t.Errorf("%s: %+v (%v), want ErrNoCgroup", name, got, err)
		}
	}
	if _, err := CgroupOf(fakeProc(t, cgroupV2, mountsV2), 4242); !errors.Is(err, ErrNoCgroup) {
		t.Errorf("a process that is not there: %v, want ErrNoCgroup", err)
	}
}

// TestCgroupOfThisProcess reads this process's own cgroup on this machine.
func TestCgroupOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/cgroup"); err != nil {
		t.Skip("no /proc/self/cgroup")
	}
	c, err := CgroupOf("/proc", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := readCgroup(c); !s.ok || !s.hasUsage {
		t.Errorf("%+v: %+v, want cpu.stat and the CPU used read", c, s)
	}
}

func TestCgroupAt(t *testing.T) {
	mounts := parseMounts(t, mountsHybrid)
	exists := func(dirs ...string) func(string) bool {
		return func(d string) bool { return slices.Contains(dirs, d) }
	}
	for _, c := range []struct {
		path   string
		exists []string
		want   Cgroup
	}{
		{"/sys/fs/cgroup/cpu/db", []string{"/sys/fs/cgroup/cpu/db"}, Cgroup{Path: "/db", CPUDir: "/sys/fs/cgroup/cpu/db", AcctDir: "/sys/fs/cgroup/cpuacct/db"}},
		{"/sys/fs/cgroup/cpu", []string{"/sys/fs/cgroup/cpu"}, Cgroup{Path: "/", CPUDir: "/sys/fs/cgroup/cpu", AcctDir: "/sys/fs/cgroup/cpuacct"}},
		{"/db", []string{"/sys/fs/cgroup/cpu/db"}, Cgroup{Path: "/db", CPUDir: "/sys/fs/cgroup/cpu/db", AcctDir: "/sys/fs/cgroup/cpuacct/db"}},
		{"/sys/fs/cgroup/unified/x", []string{"/sys/fs/cgroup/unified/x"}, Cgroup{Path: "/x", CPUDir: "/sys/fs/cgroup/unified/x", V2: true}},
		{"/x", []string{"/sys/fs/cgroup/unified/x"}, Cgroup{Path: "/x", CPUDir: "/sys/fs/cgroup/unified/x", V2: true}},
	} {
		got, err := at(mounts, c.path, exists(c.exists...))
		if err != nil || got != c.want {
			t.Errorf("%s: %+v (%v), want %+v", c.path, got, err, c.want)
		}
	}
	for _, path := range []string{"/sys/fs/cgroup/cpu/nope", "/nope", "db", "/sys/fs/cgroup/memory/db"} {
		if got, err := at(mounts, path, exists("/sys/fs/cgroup/cpu/db")); err == nil {
			t.Errorf("%s: accepted as %+v", path, got)
		}
	}
	// systemd's v1 layout: cpu and cpuacct share a mount (CgroupAt first
	// resolves the /sys/fs/cgroup/cpu symlink to it).
	v1 := parseMounts(t, mountsV1)
	dir := "/sys/fs/cgroup/cpu,cpuacct/docker/abc"
	if got, err := at(v1, dir, exists(dir)); err != nil || got != (Cgroup{Path: "/docker/abc", CPUDir: dir, AcctDir: dir}) {
		t.Errorf("v1 combined mount: %+v (%v)", got, err)
	}
	// A path that only starts like the mount's root is not under it.
	c := parseMounts(t, mountsContainer)
	if got, err := at(c, "/kubepods/pod1/c10", exists("/sys/fs/cgroup/0", "/sys/fs/cgroup")); err == nil {
		t.Errorf("/kubepods/pod1/c10 under a mount of /kubepods/pod1/c1: accepted as %+v", got)
	}
	// The real mount table: this process's cgroup by its directory.
	if c, err := CgroupOf("/proc", 0); err == nil {
		got, err := CgroupAt("/proc", c.CPUDir)
		if err != nil || got != c {
			t.Errorf("CgroupAt(%s) = %+v (%v), want %+v", c.CPUDir, got, err, c)
		}
	}
	if _, err := CgroupAt("/proc", "/sys/fs/cgroup/cpu/rightsize-no-such-cgroup"); !errors.Is(err, ErrNoCgroup) {
		t.Errorf("a cgroup that does not exist: %v", err)
	}
}

// parseMounts reads a mount table as procfs does.
func parseMounts(t *testing.T, table string) []*procfs.MountInfo {
	t.Helper()
	fs, err := procfs.NewFS(fakeProc(t, "", table))
	if err != nil {
		t.Fatal(err)
	}
	m, err := fs.GetMounts()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCgroupSample reads cgroup files in both versions' formats twice and
// checks the figures between.
func TestCgroupSample(t *testing.T) {
	dir := t.TempDir()
	v1 := Cgroup{Role: "database", Path: "/db", CPUDir: filepath.Join(dir, "cpu"), AcctDir: filepath.Join(dir, "cpuacct")}
	v2 := Cgroup{Role: "rightsize", Path: "/rs", CPUDir: filepath.Join(dir, "v2"), V2: true}
	write := func(periods, throttled, throttledUs, usageUs int) {
		writeFiles(t, v1.CPUDir, map[string]string{
			"cpu.stat":          "nr_periods " + strconv.Itoa(periods) + "\nnr_throttled " + strconv.Itoa(throttled) + "\nthrottled_time " + strconv.Itoa(throttledUs*1000) + "\nnr_bursts 0\nburst_time 0\n",
			"cpu.cfs_quota_us":  "50000\n",
			"cpu.cfs_period_us": "100000\n",
		})
		writeFiles(t, v1.AcctDir, map[string]string{"cpuacct.usage": strconv.Itoa(usageUs*1000) + "\n"})
		writeFiles(t, v2.CPUDir, map[string]string{
			"cpu.stat": "usage_usec " + strconv.Itoa(usageUs) + "\nuser_usec 1\nsystem_usec 1\nnr_periods " + strconv.Itoa(periods) + "\nnr_throttled " + strconv.Itoa(throttled) + "\nthrottled_usec " + strconv.Itoa(throttledUs) + "\n",
			"cpu.max":  "max 100000\n",
		})
	}
	write(100, 10, 1000, 5_000_000)
	prev := []cgSnap{readCgroup(v1), readCgroup(v2)}
	write(120, 20, 501000, 6_000_000) // 2 s later: 20 periods, 10 throttled, 0.5 s held back, 1 s of CPU
	cur := []cgSnap{readCgroup(v1), readCgroup(v2)}
	for i, c := range []Cgroup{v1, v2} {
		g, ok := cgroupDelta(c, prev[i], cur[i], 2)
		if !ok || g.Role != c.Role || g.Path != c.Path || g.Periods != 20 || g.ThrottledPeriods != 10 || g.ThrottledPct != 50 || g.ThrottledMsPerS != 250 || g.UsedCPUs != 0.5 {
			t.Errorf("%s: %+v, want 20 periods, 10 (50 %%) throttled, 250 ms/s, 0.5 CPUs used", c.Path, g)
		}
		if want := []float64{0.5, 0}[i]; g.LimitCPUs != want {
			t.Errorf("%s: limit %v, want %v", c.Path, g.LimitCPUs, want)
		}
	}
	// Counters that went back (a cgroup recreated) give no throttling, not
	// a negative one; a cgroup gone gives nothing.
	if g, ok := cgroupDelta(v1, cur[0], prev[0], 2); !ok || g.Periods != 0 || g.ThrottledPct != 0 || g.UsedCPUs != 0 {
		t.Errorf("counters reset: %+v", g)
	}
	if _, ok := cgroupDelta(v1, prev[0], readCgroup(Cgroup{CPUDir: filepath.Join(dir, "gone")}), 2); ok {
		t.Error("a cgroup gone gave figures")
	}
	// A v2 cgroup without the cpu controller: its usage, no throttling.
	bare := Cgroup{CPUDir: filepath.Join(dir, "bare"), V2: true}
	writeFiles(t, bare.CPUDir, map[string]string{"cpu.stat": "usage_usec 1000000\nuser_usec 1\nsystem_usec 1\n"})
	a := readCgroup(bare)
	writeFiles(t, bare.CPUDir, map[string]string{"cpu.stat": "usage_usec 3000000\nuser_usec 1\nsystem_usec 1\n"})
	if g, ok := cgroupDelta(bare, a, readCgroup(bare), 1); !ok || g.UsedCPUs != 2 || g.Periods != 0 || g.LimitCPUs != 0 || math.IsNaN(g.ThrottledPct) {
		t.Errorf("no cpu controller: %+v", g)
	}
}

func TestMergeCgroups(t *testing.T) {
	own := Cgroup{Role: "rightsize", Path: "/", CPUDir: "/c"}
	pg := Cgroup{Role: "database", Server: "postgres (PID 7)", Path: "/", CPUDir: "/c"}
	my := Cgroup{Role: "database", Server: "mariadbd (PID 9)", Path: "/m", CPUDir: "/c/m"}
	got := mergeCgroups([]Cgroup{own, pg, my, pg})
	if len(got) != 2 || got[0].Role != "rightsize and database" || got[0].Server != "postgres (PID 7)" || got[1] != my {
		t.Errorf("%+v", got)
	}
}

// TestListener finds this test's own listening sockets, TCP and Unix.
func TestListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	u, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for _, a := range [][2]string{{"tcp", l.Addr().String()}, {"tcp", "localhost:" + port(l)}, {"unix", u.Addr().String()}} {
		pid, comm, err := Listener("/proc", a[0], a[1])
		if err != nil || pid != os.Getpid() || comm == "" {
			t.Errorf("%s %s: PID %d %q (%v), want this process, %d", a[0], a[1], pid, comm, err, os.Getpid())
		}
	}
	// A connection to it is no listener; a closed port has none.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := closed.Addr().String()
	closed.Close()
	for _, a := range [][2]string{{"tcp", addr}, {"tcp", c.LocalAddr().String()}, {"unix", "/nonexistent/s.sock"}} {
		if _, _, err := Listener("/proc", a[0], a[1]); !errors.Is(err, ErrNoListener) {
			t.Errorf("%s %s: %v, want ErrNoListener", a[0], a[1], err)
		}
	}
	if _, _, err := Listener("/proc", "udp", addr); err == nil || errors.Is(err, ErrNoListener) {
		t.Errorf("udp: %v, want a plain error", err)
	}
}

func port(l net.Listener) string {
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p
}

// systemd's v1 layout names the cpu hierarchy's mount cpu,cpuacct and
// links cpu to it: a cgroup given by the link's name is found.
func TestCgroupAtThroughASymlink(t *testing.T) {
	root := t.TempDir()
	mount := filepath.Join(root, "cpu,cpuacct")
	writeFiles(t, filepath.Join(mount, "docker", "abc"), map[string]string{"cpu.stat": cpuStatV1})
	if err := os.Symlink("cpu,cpuacct", filepath.Join(root, "cpu")); err != nil {
		t.Fatal(err)
	}
	proc := fakeProc(t, cgroupV1, "33 25 0:30 / "+mount+" rw,relatime shared:15 - cgroup cgroup rw,cpu,cpuacct\n")
	dir := filepath.Join(mount, "docker", "abc")
	got, err := CgroupAt(proc, filepath.Join(root, "cpu", "docker", "abc"))
	if err != nil || got != (Cgroup{Path: "/docker/abc", CPUDir: dir, AcctDir: dir}) {
		t.Errorf("through the cpu link: %+v (%v)", got, err)
	}
}
