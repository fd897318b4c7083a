#!/bin/sh
# Writes the sysfs fixture trees the tests read (run from testdata/; the
# trees are committed, this script documents how they were made). Each tree
# holds only the files topology.FromSys reads, plus a few it must skip.
#
#   seed-2x12-ht/   the seed study's host: 2 sockets x 12-core Xeon E5-2680 v3,
#                   HT, 48 logical CPUs numbered as Intel does (siblings n and
#                   n+24; socket 0 = CPUs 0-11 and 24-35), Haswell's core_id
#                   gaps (0-5, 8-13), no die_id file (RHEL 7's kernel has
#                   none), 2 NUMA nodes of 128 GiB.
#   epyc-1x32-nps4/ an AMD EPYC-like host: 1 socket, 32 cores, SMT 2
#                   (siblings n and n+32), die_id 0, NPS4: 4 NUMA nodes of
#                   8 cores and 64 GiB each.
#   small-1x2/      the shape of the development machine: 1 socket, 2 cores,
#                   no SMT, 1 node of 5596960 kB.
set -eu

cpu() { # root cpu package die core siblings  (die "-" = no die_id file)
	d=$1/devices/system/cpu/cpu$2/topology
	mkdir -p "$d"
	echo "$3" >"$d/physical_package_id"
	[ "$4" = - ] || echo "$4" >"$d/die_id"
	echo "$5" >"$d/core_id"
	echo "$6" >"$d/thread_siblings_list"
}
node() { # root id cpulist kB
	d=$1/devices/system/node/node$2
	mkdir -p "$d"
	echo "$3" >"$d/cpulist"
	printf 'Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n' "$2" "$4" "$2" $(($4 / 2)) >"$d/meminfo"
}
common() { # root online
	mkdir -p "$1/devices/system/cpu" "$1/devices/system/node"
	echo "$2" >"$1/devices/system/cpu/online"
	echo "$2" >"$1/devices/system/cpu/possible"
	echo 0 >"$1/devices/system/node/online"
	echo 0 >"$1/devices/system/node/has_cpu"
}

r=seed-2x12-ht
rm -rf $r
common $r 0-47
echo 0-1 >$r/devices/system/node/online
ids="0 1 2 3 4 5 8 9 10 11 12 13"
for s in 0 1; do
	i=0
	for core in $ids; do
		n=$((s * 12 + i))
		cpu $r $n $s - $core "$n,$((n + 24))"
		cpu $r $((n + 24)) $s - $core "$n,$((n + 24))"
		i=$((i + 1))
	done
done
node $r 0 0-11,24-35 134217728
node $r 1 12-23,36-47 134217728

r=epyc-1x32-nps4
rm -rf $r
common $r 0-63
echo 0-3 >$r/devices/system/node/online
for n in $(seq 0 31); do
	cpu $r $n 0 0 $n "$n,$((n + 32))"
	cpu $r $((n + 32)) 0 0 $n "$n,$((n + 32))"
done
for k in 0 1 2 3; do
	node $r $k "$((k * 8))-$((k * 8 + 7)),$((k * 8 + 32))-$((k * 8 + 39))" 67108864
done

r=small-1x2
rm -rf $r
common $r 0-1
cpu $r 0 0 0 0 0
cpu $r 1 0 0 1 1
node $r 0 0-1 5596960
