// Package topology describes a host's CPU and memory layout: sockets, cores,
// hardware threads, NUMA nodes and the memory on each. The capacity planner
// checks VMs against it (one vCPU per physical core, fit a NUMA node), and
// `measure ht` uses its lists of sibling CPUs.
//
// A Host comes from one of two places: FromSys reads a sysfs tree given as
// an fs.FS (the CLI passes os.DirFS("/sys"); tests pass fixture trees under
// testdata/), and Parse reads a host description file (YAML) for a machine
// other than the one rightsize runs on, such as the seed study's 2 × 12-core
// server.
//
// The package is pure: it never opens a file by path nor touches the process;
// what it reads comes through the fs.FS or the bytes it is given.
//
// Memory sizes are int64 bytes. FormatBytes writes them in binary units
// (GiB); ParseBytes reads both decimal (GB = 10^9) and binary (GiB = 2^30)
// units, since vendors and users write both.
package topology
