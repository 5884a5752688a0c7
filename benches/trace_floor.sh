#!/usr/bin/env bash
# The kernel's own cost of the block tracepoints, with no reader: fio (randread 4k QD32,
# io_uring, O_DIRECT) on a file on the root disk, alternating runs with no events on and with a
# set of block events enabled by hand in a tracefs instance of its own (with the same `dev`
# filter as `--trace`; the buffer overwrites itself, nobody reads it). The IOPS ratio of a set
# against the plain runs is the floor under `--trace`'s overhead for that set. Root only.
#
#   benches/trace_floor.sh                  # 5 rounds x 2 s, 256 MiB
#   ROUNDS=5 RUNTIME=5 SIZE=1G benches/trace_floor.sh
#
# Environment: FIO (default fio), BENCH_DIR (default /var/tmp/diskdash-bench), ROUNDS, RUNTIME
# (seconds), SIZE.
set -euo pipefail
ROUNDS=${ROUNDS:-5}
RUNTIME=${RUNTIME:-2}
SIZE=${SIZE:-256M}
FIO=${FIO:-fio}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
[ "$(id -u)" -eq 0 ] || { echo "needs root (tracefs)" >&2; exit 1; }
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
mkdir -p "$BENCH_DIR"
FILE=$BENCH_DIR/trace-floor.bin
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" -lt "$(numfmt --from=iec "$SIZE")" ]; then
  dd if=/dev/urandom of="$FILE" bs=1M count=$(( $(numfmt --from=iec "$SIZE") >> 20 )) status=none
fi
# The file's disk and its partitions, in the kernel's encoding (major << 20 | minor).
part=$(df --output=source "$FILE" | tail -1); part=${part#/dev/}
disk=$(basename "$(readlink -f "/sys/class/block/$part/..")")
[ -e "/sys/block/$disk" ] || disk=$part
filter=$(for d in /sys/block/$disk /sys/block/$disk/$disk*; do
  [ -f "$d/dev" ] || continue
  IFS=: read -r ma mi < "$d/dev"; echo "dev == $(( (ma << 20) | mi ))"
done | paste -sd'|' | sed 's/|/ || /g')
INST=$T/instances/diskdash-floor-$$
trap '[ -d "$INST" ] && { echo 0 > "$INST/tracing_on"; rmdir "$INST"; } 2>/dev/null || true' EXIT

declare -A SETS=(
  [all]="block_bio_queue block_bio_backmerge block_bio_frontmerge block_getrq block_io_start block_rq_insert block_rq_issue block_rq_complete block_io_done block_bio_complete"
  [default]="block_io_start block_rq_insert block_rq_issue block_rq_complete block_io_done"
  [no_insert]="block_io_start block_rq_issue block_rq_complete block_io_done"
  [issue_complete]="block_rq_issue block_rq_complete"
)
ORDER=(plain all default no_insert issue_complete)

iops() { # set
  local set=$1
  if [ "$set" != plain ]; then
    mkdir "$INST"; echo 8192 > "$INST/buffer_size_kb"
    for e in ${SETS[$set]}; do
      [ -d "$INST/events/block/$e" ] || continue
      echo "$filter" > "$INST/events/block/$e/filter"; echo 1 > "$INST/events/block/$e/enable"
    done
  fi
  "$FIO" --name=floor --filename="$FILE" --rw=randread --bs=4k --iodepth=32 \
    --ioengine=io_uring --direct=1 --size="$SIZE" --runtime="$RUNTIME" --time_based \
    --output-format=json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
cpu_ns = (j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] * 1e6
print(j["read"]["iops"], cpu_ns / max(j["read"]["total_ios"], 1))'
  if [ "$set" != plain ]; then echo 0 > "$INST/tracing_on"; rmdir "$INST"; fi
}

declare -A R
for r in $(seq 1 "$ROUNDS"); do
  for set in "${ORDER[@]}"; do R[$set.$r]=$(iops "$set"); done
  echo "round $r: $(for s in "${ORDER[@]}"; do printf '%s %.0f IOPS %.0f ns CPU/IO  ' "$s" ${R[$s.$r]}; done)"
done
# fio's own CPU per I/O (its thread's user + system time: the submitting side's tracepoints;
# those run at completion in interrupts are not in it) is steadier than IOPS on a busy machine.
for set in "${ORDER[@]:1}"; do
  for r in $(seq 1 "$ROUNDS"); do echo "${R[$set.$r]} ${R[plain.$r]}"; done | python3 -c '
import statistics, sys
rows = [[float(x) for x in l.split()] for l in sys.stdin]
r = [a / c for a, _, c, _ in rows]
cpu = [b - d for _, b, _, d in rows]
print(f"'"$set"': IOPS ratio to plain, median {statistics.median(r):.3f} (range {min(r):.3f}-{max(r):.3f}); "
      f"fio CPU per I/O {statistics.median(cpu):+.0f} ns (median of the rounds)")'
done
