#!/usr/bin/env bash
# Counts per I/O, rightsize's fileio against fio 3.33 on the same file (issue
# 18: profile and count before optimising), the storage counterpart of
# counts_oltp.sh. For each case and client, one run under perf stat (the
# client's CPU, context switches and CPU migrations per I/O) with
# /proc/interrupts read around it (the host's rescheduling and function-call
# interrupts), then a shorter run under strace -f -c (system calls per I/O,
# and the three most frequent), and for rightsize its Go heap allocations per
# I/O. fio runs at its best setting here, io_uring with --fixedbufs
# --registerfiles, and with libaio. See bench/README.md.
#
# Env options:
#   TIME=10            seconds of the perf run
#   STRACE_TIME=5      seconds of the strace run (its throughput is not compared)
#   SIZE=2G            the test file, laid out by rightsize prepare fileio
#   CASES="randread_4k randrw70_16k seqread_2m"
#   FIO_ENGINES="io_uring_fixed libaio"
#   OUT=bench/out      the file (fileio_counts.dat) and the raw outputs
set -euo pipefail

TIME=${TIME:-10}
STRACE_TIME=${STRACE_TIME:-5}
SIZE=${SIZE:-2G}
CASES=${CASES:-"randread_4k randrw70_16k seqread_2m"}
FIO_ENGINES=${FIO_ENGINES:-"io_uring_fixed libaio"}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out
FILE=$OUT/fileio_counts.dat

case $(stat -f -c %T "$OUT") in
  tmpfs | ramfs) die "OUT=$OUT is on tmpfs, where O_DIRECT does not work" ;;
esac
ensure_pkg fio fio
ensure_pkg perf linux-perf
ensure_pkg strace strace
ensure_pkg jq jq

build_rightsize

declare -A FIO_ARGS=(
  [randread_4k]="--rw=randread --bs=4k"
  [randrw70_16k]="--rw=randrw --rwmixread=70 --bs=16k"
  [seqread_2m]="--rw=read --bs=2m"
)
declare -A RS_ARGS=(
  [randread_4k]="--pattern t1_o32_b4k --read 100"
  [randrw70_16k]="--pattern t1_o32_b16k --read 70"
  [seqread_2m]="--pattern t1_o32_b2m --sequential --read 100"
)
for c in $CASES; do
  [ -n "${FIO_ARGS[$c]:-}" ] || die "unknown case '$c' (want randread_4k, randrw70_16k and/or seqread_2m)"
done

# client CASE TOOL SECONDS OUTBASE: the client's command line, one word per
# argument (the pattern's spaces travel as underscores, undone below).
client() {
  local c=$1 tool=$2 t=$3 base=$4
  case $tool in
    fio:io_uring_fixed) echo fio --name="$c" --filename="$FILE" ${FIO_ARGS[$c]} --iodepth=32 --numjobs=1 --direct=1 \
      --ioengine=io_uring --fixedbufs=1 --registerfiles=1 --time_based --runtime="$t" --output-format=json --output="$base.json" ;;
    fio:*) echo fio --name="$c" --filename="$FILE" ${FIO_ARGS[$c]} --iodepth=32 --numjobs=1 --direct=1 \
      --ioengine="${tool#fio:}" --time_based --runtime="$t" --output-format=json --output="$base.json" ;;
    rightsize) echo "$RS" run fileio --file "$FILE" ${RS_ARGS[$c]} --time "${t}s" --report-interval 10s \
      --no-history --out "$base.json" ;;
  esac
}

# run_counted COUNTER BASE CASE TOOL SECONDS: COUNTER (perf_counts or
# strace_counts) over the client's command, the pattern's underscores made
# spaces again.
run_counted() {
  local counter=$1 base=$2 args=()
  read -r -a args <<<"$(client "$3" "$4" "$5" "$base")"
  for i in "${!args[@]}"; do
    case ${args[$i]} in t1_o32_*) args[i]=${args[$i]//_/ } ;; esac
  done
  "$counter" "$base" "${args[@]}"
}

ios() { # ios TOOL BASE: the I/Os the run did
  case $1 in
    fio:*) jq -r '.jobs[0].read.total_ios + .jobs[0].write.total_ios' "$2.json" 2>/dev/null || echo 0 ;;
    rightsize) jq -r '.fileio.total.count // 0' "$2.json" 2>/dev/null || echo 0 ;;
  esac
}

cleanup() { "$RS" cleanup fileio --file "$FILE" >/dev/null 2>&1 || true; }
trap cleanup EXIT
log "rightsize prepare fileio --file $FILE --size $SIZE"
"$RS" prepare fileio --file "$FILE" --size "$SIZE" >"$OUT/fileio_counts_prepare.txt" 2>&1 ||
  die "prepare failed, see $OUT/fileio_counts_prepare.txt"
sync
sleep 10

rows=()
for c in $CASES; do
  for tool in $(for e in $FIO_ENGINES; do echo "fio:$e"; done) rightsize; do
    base="$OUT/fileio_counts_${c}_${tool/:/_}"
    log "$tool $c: perf stat, ${TIME}s"
    run_counted perf_counts "$base" "$c" "$tool" "$TIME"
    n=$(ios "$tool" "$base")
    log "$tool $c: strace -f -c, ${STRACE_TIME}s"
    run_counted strace_counts "$base.st" "$c" "$tool" "$STRACE_TIME"
    ns=$(ios "$tool" "$base.st")
    allocs=-
    [ "$tool" = rightsize ] && allocs=$(jq -r '.client.allocs_per_event // 0 | . * 100 | round / 100' "$base.json")
    rows+=("$(printf '%-19s %-13s %9s %8s %7s %7s %7s %8s %6s  %s' "$tool" "$c" \
      "$(per "$n" "$TIME" 0)" "$(per "$PC_CPU_US" "$n")" "$(per "$PC_CS" "$n" 3)" "$(per "$PC_MIG" "$n" 4)" \
      "$(per "$PC_IPI" "$n" 3)" "$(per "$SC_CALLS" "$ns" 3)" "$allocs" "$(strace_top "$ns")")")
  done
done

{
  printf '%-19s %-13s %9s %8s %7s %7s %7s %8s %6s  %s\n' tool case iops cpu_us ctxsw migr ipi syscalls allocs \
    'most frequent system calls per I/O'
  printf '%s\n' "${rows[@]}"
  echo
  echo "per I/O: cpu_us = the client's CPU (perf task-clock, the whole process); ctxsw and migr = its context switches"
  echo "and CPU migrations; ipi = rescheduling + function-call interrupts of the whole host; syscalls = the client's"
  echo "system calls under strace -f (a ${STRACE_TIME}s run of its own); allocs = rightsize's Go heap allocations"
  echo "(client.allocs_per_event; fio is C, -). iops is the perf run's, one run: compare throughput with"
  echo "fileio_vs_fio.sh's medians, not here."
} | tee "$OUT/counts_fileio.txt"
