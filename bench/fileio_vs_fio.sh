#!/usr/bin/env bash
# Side-by-side comparison of rightsize's fileio workload and fio on the same
# file with the same parameters, direct I/O: IOPS, 99th-percentile latency,
# MB/s and client CPU per I/O for three storage cases. See bench/README.md.
#
# Cases (one thread, 32 I/Os in flight, random unless said otherwise):
#   randread_4k    4k random read            fio --rw=randread  | rightsize --read 100
#   randrw70_16k   16k random, 70 % reads    fio --rw=randrw --rwmixread=70 | --read 70
#   seqread_2m     2m sequential read        fio --rw=read      | --sequential --read 100
#   seqread_2m_huge  the same, fio's buffers on huge pages (--mem=mmaphuge on a
#                  hugetlbfs mount the script makes, as rightsize's buffers are
#                  on transparent huge pages): needs root; skipped otherwise
#
# Env options:
#   TIME=30            seconds per run (each tool, each case); "30s" works too
#   REPS=3             runs of each tool per case, alternating which tool goes
#                      first; the table shows the median of each figure
#   SIZE=2G            size of the one test file (k, m, g, t are powers of 1024)
#   FILE=$OUT/fileio.dat  the test file, laid out by 'rightsize prepare fileio'
#   SETTLE=15             seconds to pause after the layout, then as many of
#                         untimed reads, before measuring
#                      (kept if already laid out by it with this SIZE). It must
#                      be a regular file, not on tmpfs (no O_DIRECT there).
#   CASES="randread_4k randrw70_16k seqread_2m seqread_2m_huge"
#   ENGINES=           fio I/O engines, e.g. "io_uring libaio" runs fio with each
#                      and the table shows a row per engine (rightsize runs once
#                      per case and repetition); io_uring_fixed is io_uring with
#                      --fixedbufs --registerfiles. Default: fio's best here,
#                      "io_uring_fixed libaio" when 'fio --enghelp' lists
#                      io_uring and a 1-second probe works, else libaio.
#                      rightsize picks its own engine (io_uring with registered
#                      buffers and file, else psync); the table shows both.
#   KEEP=0             1 keeps FILE at the end (default: rightsize cleanup fileio)
#   OUT=bench/out      output directory (gitignored); raw fio and rightsize JSON,
#                      logs and /usr/bin/time files stay there
set -euo pipefail

TIME=${TIME:-30}
TIME=${TIME%s}
REPS=${REPS:-3}
SIZE=${SIZE:-2G}
SETTLE=${SETTLE:-15}
CASES=${CASES:-"randread_4k randrw70_16k seqread_2m seqread_2m_huge"}
ENGINES=${ENGINES:-}
KEEP=${KEEP:-0}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$SCRIPT_DIR/lib.sh"
init_out
FILE=${FILE:-$OUT/fileio.dat}

case $TIME in '' | *[!0-9]* | 0) die "TIME=$TIME: want a positive number of whole seconds" ;; esac
want_positive REPS
case $SIZE in '' | *[!0-9kKmMgGtT]*) die "SIZE=$SIZE: want a size such as 2G, 512M" ;; esac

# Case parameters: fio's options and rightsize's, the same I/O pattern.
declare -A FIO_ARGS=(
  [randread_4k]="--rw=randread --bs=4k --iodepth=32"
  [randrw70_16k]="--rw=randrw --rwmixread=70 --bs=16k --iodepth=32"
  [seqread_2m]="--rw=read --bs=2m --iodepth=32"
  [seqread_2m_huge]="--rw=read --bs=2m --iodepth=32" # + --mem=mmaphuge:FILE, below
)
declare -A RS_ARGS=(
  [randread_4k]="--read 100"
  [randrw70_16k]="--read 70"
  [seqread_2m]="--sequential --read 100"
  [seqread_2m_huge]="--sequential --read 100"
)
declare -A RS_PATTERN=(
  [randread_4k]="t1 o32 b4k"
  [randrw70_16k]="t1 o32 b16k"
  [seqread_2m]="t1 o32 b2m"
  [seqread_2m_huge]="t1 o32 b2m"
)
for c in $CASES; do
  [ -n "${FIO_ARGS[$c]:-}" ] || die "unknown case '$c' (want randread_4k, randrw70_16k, seqread_2m and/or seqread_2m_huge)"
done

# ---------------------------------------------------------------- the file
# O_DIRECT fails on tmpfs (EINVAL), and fio would then fail while rightsize
# fell back to the page cache: refuse it rather than compare unlike runs.
case $FILE in /*) ;; *) FILE=$PWD/$FILE ;; esac
FILE_DIR=$(dirname "$FILE")
[ -d "$FILE_DIR" ] || die "FILE=$FILE: directory $FILE_DIR does not exist"
if [ -e "$FILE" ] && [ ! -f "$FILE" ]; then
  die "FILE=$FILE is not a regular file (this script writes to it; block devices are not supported)"
fi
FSTYPE=$(stat -f -c %T "$FILE_DIR")
case $FSTYPE in
  tmpfs | ramfs) die "FILE=$FILE is on $FSTYPE, where O_DIRECT does not work; set FILE to a path on a disk filesystem" ;;
esac

# ---------------------------------------------------------------- packages
ensure_pkg fio fio
ensure_pkg jq jq
ensure_pkg /usr/bin/time time

# ---------------------------------------------------------------- build
command -v go >/dev/null 2>&1 || die "go toolchain not found (see go.mod for the version)"
build_rightsize
RS_COMMIT=$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$REPO_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  RS_COMMIT+="+dirty"
fi

# ---------------------------------------------------------------- prepare
cleanup() {
  [ "$KEEP" = 1 ] && { log "KEEP=1: keeping $FILE"; return 0; }
  log "rightsize cleanup fileio --file $FILE"
  "$RS" cleanup fileio --file "$FILE" >"$OUT/fileio_cleanup.txt" 2>&1 ||
    log "cleanup failed, see $OUT/fileio_cleanup.txt"
}
trap 'cleanup; huge_cleanup' EXIT

# ---------------------------------------------------------------- huge pages
# seqread_2m_huge gives fio huge-page buffers: a hugetlbfs mount under OUT
# and enough reserved 2 MiB pages for 32 buffers of 2 MiB (and fio's
# alignment). Both are undone at exit; the pages reserved before are restored.
HUGE_DIR=$OUT/hugetlbfs
HUGE_OLD=
HUGE_NOTE=
huge_cleanup() {
  if mountpoint -q "$HUGE_DIR" 2>/dev/null; then umount "$HUGE_DIR" || log "could not unmount $HUGE_DIR"; fi
  if [ -n "$HUGE_OLD" ]; then echo "$HUGE_OLD" >/proc/sys/vm/nr_hugepages || log "could not restore vm.nr_hugepages=$HUGE_OLD"; fi
}
huge_setup() {
  [ "$(id -u)" = 0 ] || { HUGE_NOTE="not root: cannot mount hugetlbfs or reserve huge pages"; return 1; }
  HUGE_OLD=$(cat /proc/sys/vm/nr_hugepages)
  local want=$((HUGE_OLD + 40))
  echo "$want" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
  if [ "$(cat /proc/sys/vm/nr_hugepages)" -lt "$want" ]; then
    HUGE_NOTE="the kernel reserved only $(cat /proc/sys/vm/nr_hugepages) of $want huge pages (memory too fragmented)"
    return 1
  fi
  mkdir -p "$HUGE_DIR"
  mount -t hugetlbfs none "$HUGE_DIR" 2>/dev/null || { HUGE_NOTE="mount -t hugetlbfs failed"; return 1; }
}
case " $CASES " in
  *" seqread_2m_huge "*)
    if huge_setup; then
      FIO_ARGS[seqread_2m_huge]+=" --mem=mmaphuge:$HUGE_DIR/fio.buf"
      log "fio's huge-page buffers: $HUGE_DIR (vm.nr_hugepages $HUGE_OLD -> $(cat /proc/sys/vm/nr_hugepages))"
    else
      log "skipping seqread_2m_huge: $HUGE_NOTE"
      CASES=$(echo "$CASES" | tr ' ' '\n' | grep -vx seqread_2m_huge | tr '\n' ' ')
    fi
    ;;
esac
log "rightsize prepare fileio --file $FILE --size $SIZE"
"$RS" prepare fileio --file "$FILE" --size "$SIZE" >"$OUT/fileio_prepare.txt" 2>&1 ||
  { tail -5 "$OUT/fileio_prepare.txt" >&2; die "prepare failed, see $OUT/fileio_prepare.txt"; }
FILE_BYTES=$(stat -c %s "$FILE")
# Right after a large write, the storage behind a VM's disk is often still
# busy flushing it: measured here, the first 30 s read run after laying out
# 2 GiB got half the IOPS of the same run a minute later, whichever tool it
# was. Let it settle, then read for a while untimed, before measuring.
log "settling: sync, ${SETTLE}s pause, ${SETTLE}s untimed random reads"
sync
sleep "$SETTLE"
"$RS" run fileio --file "$FILE" --pattern "t1 o32 b4k" --read 100 --time "${SETTLE}s" \
  --prepare never --report-interval "${SETTLE}s" --out - >"$OUT/fileio_settle.txt" 2>&1 ||
  log "the settling run failed, see $OUT/fileio_settle.txt"

# ---------------------------------------------------------------- fio engine
# An engine in ENGINES is one of fio's (--ioengine=NAME) or io_uring_fixed:
# io_uring with its buffers registered with the kernel once (--fixedbufs, so
# no page is pinned per I/O) and its file registered (--registerfiles, so no
# descriptor lookup per I/O), fio's lightest io_uring setting without a
# polling kernel thread.
fio_engine_args() {
  case $1 in
    io_uring_fixed) echo "--ioengine=io_uring --fixedbufs=1 --registerfiles=1" ;;
    *) echo "--ioengine=$1" ;;
  esac
}
fio_has_engine() {
  local e=$1
  [ "$e" = io_uring_fixed ] && e=io_uring
  fio --enghelp 2>/dev/null | awk -v e="$e" '$1 == e { f = 1 } END { exit !f }'
}
fio_probe() { # fio_probe ENGINE: a 1-second read-only direct run on FILE works
  local j=$OUT/fileio_fio_probe_$1.json
  fio --name=probe --filename="$FILE" --readonly --rw=randread --bs=4k --iodepth=1 \
    --direct=1 --ioengine="$1" --time_based --runtime=1 --output-format=json \
    --output="$j" >"$OUT/fileio_fio_probe_$1.txt" 2>&1 &&
    jq -e '.jobs[0].error == 0 and (.jobs[0].read.total_ios > 0)' "$j" >/dev/null 2>&1
}
if [ -z "$ENGINES" ]; then
  if fio_has_engine io_uring && fio_probe io_uring; then
    ENGINES="io_uring_fixed libaio"
  else
    log "fio's io_uring is not listed or its probe failed (see $OUT/fileio_fio_probe_io_uring.txt); using libaio"
    ENGINES=libaio
  fi
fi
for e in $ENGINES; do
  fio_has_engine "$e" || die "ENGINES: fio $(fio --version) does not list engine '$e' (fio --enghelp)"
done
log "fio engine(s): $ENGINES"

# ---------------------------------------------------------------- helpers

FAILED=0
NOTES=()
[ -z "$HUGE_NOTE" ] || NOTES+=("seqread_2m_huge skipped: $HUGE_NOTE")
declare -A R # results, keyed "case/tool/field" (tool: fio:ENGINE or rs): one value per repetition
declare -A M # medians of R
RS_ENGINE=

run_fio() { # run_fio CASE ENGINE REP
  local c=$1 e=$2 k=$3 base="$OUT/fileio_fio_${1}_${2}_$3" rc=0
  log "fio       $c engine $e (${TIME}s, run $k of $REPS)"
  rm -f "$base.json"
  # shellcheck disable=SC2086 # FIO_ARGS holds several options
  /usr/bin/time -f '%U %S' -o "$base.time" \
    fio --name="$c" --filename="$FILE" ${FIO_ARGS[$c]} --numjobs=1 --direct=1 \
      $(fio_engine_args "$e") --time_based --runtime="$TIME" --group_reporting \
      --output-format=json --output="$base.json" >"$base.txt" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] || ! jq -e '.jobs[0].error == 0' "$base.json" >/dev/null 2>&1; then
    log "fio $c $e FAILED (exit $rc), see $base.txt and $base.json"; tail -5 "$base.txt" >&2
    FAILED=1; return 0
  fi
  local iops p99 mbs cpu ios
  read -r iops p99 mbs cpu ios < <(jq -r '.jobs[0] as $j
    | ($j.read.total_ios + $j.write.total_ios) as $ios
    | [ ($j.read.iops + $j.write.iops | . * 10 | round / 10),
        ($j.read.clat_ns.percentile["99.000000"] // 0 | . / 1e6 | . * 1000 | round / 1000),
        (($j.read.bw_bytes + $j.write.bw_bytes) / 1e6 | . * 10 | round / 10),
        (if $ios > 0 then ($j.usr_cpu + $j.sys_cpu) / 100 * ($j.job_runtime / 1000) / $ios * 1e6
           | . * 100 | round / 100 else "n/a" end),
        $ios ] | @tsv' "$base.json")
  R[$c/fio:$e/iops]+=" $iops"
  R[$c/fio:$e/p99]+=" $p99"
  R[$c/fio:$e/mbs]+=" $mbs"
  R[$c/fio:$e/cpu]+=" $cpu"
  R[$c/fio:$e/proc]+=" $(cpu_us_per "$base.time" "$ios" 2)"
}

run_rightsize() { # run_rightsize CASE REP
  local c=$1 k=$2 base="$OUT/fileio_rightsize_${1}_$2" rc=0
  log "rightsize $c (${TIME}s, run $k of $REPS)"
  rm -f "$base.json"
  # shellcheck disable=SC2086 # RS_ARGS holds several options
  /usr/bin/time -f '%U %S' -o "$base.time" \
    "$RS" run fileio --file "$FILE" --pattern "${RS_PATTERN[$c]}" ${RS_ARGS[$c]} \
      --time "${TIME}s" --report-interval 10s --out "$base.json" >"$base.txt" 2>&1 || rc=$?
  if ! jq -e '.fileio.total.iops' "$base.json" >/dev/null 2>&1; then
    log "rightsize $c FAILED (exit $rc, no fileio summary), see $base.txt"; tail -5 "$base.txt" >&2
    FAILED=1; return 0
  fi
  rs_complete "$base.json" "$rc" "$c" "$c" "$base.txt" || true
  local iops p99 mbs cpu ios engine
  read -r iops p99 mbs cpu ios engine < <(jq -r '.fileio
    | [ (.total.iops | . * 10 | round / 10),
        (.read.latency.p99_ms | . * 1000 | round / 1000),
        (.total.mb_s | . * 10 | round / 10),
        (.cpu_per_io_us // "n/a" | if type == "number" then . * 100 | round / 100 else . end),
        .total.count, (if .engine == "" then "?" else .engine end) ] | @tsv' "$base.json")
  R[$c/rs/iops]+=" $iops"
  R[$c/rs/p99]+=" $p99"
  R[$c/rs/mbs]+=" $mbs"
  R[$c/rs/cpu]+=" $cpu"
  R[$c/rs/proc]+=" $(cpu_us_per "$base.time" "$ios" 2)"
  case ",$RS_ENGINE," in *",$engine,"*) ;; *) RS_ENGINE+="${RS_ENGINE:+,}$engine" ;; esac
}

# ---------------------------------------------------------------- runs
# Both tools read the same laid-out file with O_DIRECT, so no page cache
# favours either. The order alternates from one repetition (and case) to the
# next so that device-side drift (an SSD's or the host's write-back after the
# mixed case, thermal throttling) does not always fall on the same tool.
for c in $CASES; do
  for k in $(seq 1 "$REPS"); do
    next_order fio rightsize
    for t in $ORDER; do
      case $t in
        fio) for e in $ENGINES; do run_fio "$c" "$e" "$k"; done ;;
        rightsize) run_rightsize "$c" "$k" ;;
      esac
    done
  done
done
# Medians of the repetitions; the raw values go to the table's footer.
medians

# ---------------------------------------------------------------- report
TABLE=$OUT/fileio_vs_fio.txt
{
  printf '# rightsize %s vs %s: file %s (%s bytes, %s on %s), direct I/O, time=%ss, median of %s alternating runs, %s, kernel %s, nproc=%s\n' \
    "$RS_COMMIT" "$(fio --version)" "$FILE" "$FILE_BYTES" "$FSTYPE" \
    "$(df --output=source "$FILE" 2>/dev/null | tail -1)" "$TIME" "$REPS" \
    "$(date -u +%FT%TZ)" "$(uname -r)" "$(nproc)"
  fmt='%-13s %-17s %9s %9s %6s %8s %8s %9s %9s %6s %8s %8s %9s %9s %6s\n'
  # shellcheck disable=SC2059 # fmt is this table's format
  printf "$fmt" case engine_fio/rs fio_iops rs_iops iops_x fio_p99 rs_p99 fio_us/io rs_us/io cpu_x \
    fio_MB/s rs_MB/s fio_proc rs_proc proc_x
  for c in $CASES; do
    for e in $ENGINES; do
      f=$c/fio:$e
      # shellcheck disable=SC2059
      printf "$fmt" "$c${R[$c/flag]:-}" "$e/${RS_ENGINE:-?}" \
        "${M[$f/iops]:-n/a}" "${M[$c/rs/iops]:-n/a}" "$(ratio "${M[$c/rs/iops]:-}" "${M[$f/iops]:-}")" \
        "${M[$f/p99]:-n/a}" "${M[$c/rs/p99]:-n/a}" \
        "${M[$f/cpu]:-n/a}" "${M[$c/rs/cpu]:-n/a}" "$(ratio "${M[$c/rs/cpu]:-}" "${M[$f/cpu]:-}")" \
        "${M[$f/mbs]:-n/a}" "${M[$c/rs/mbs]:-n/a}" \
        "${M[$f/proc]:-n/a}" "${M[$c/rs/proc]:-n/a}" "$(ratio "${M[$c/rs/proc]:-}" "${M[$f/proc]:-}")"
    done
  done
  for c in $CASES; do
    for e in $ENGINES; do runs_lines "$c" "fio:$e" iops p99 cpu; done
    runs_lines "$c" rs iops p99 cpu
  done
  notes_lines
  echo "# One thread, 32 I/Os in flight, O_DIRECT, on the same file; rightsize run with --pattern \"t1 o32 b<bs>\"."
  echo "# iops_x = rightsize/fio IOPS (>1: rightsize drove more). p99 in ms: read latency (the mixed case"
  echo "#   too); fio's is clat (submission to completion), rightsize's each I/O's time in flight."
  echo "# us/io: CPU µs per I/O over the measured window: fio (usr_cpu+sys_cpu)% x job_runtime / ios,"
  echo "#   rightsize .fileio.cpu_per_io_us. proc: the whole process (/usr/bin/time user+sys, start-up"
  echo "#   included) / I/Os. cpu_x, proc_x = rightsize/fio (<1: rightsize lighter). MB/s: 10^6 bytes."
} | tee "$TABLE"

[ "$FAILED" -eq 0 ] || die "some runs failed; see logs in $OUT"
