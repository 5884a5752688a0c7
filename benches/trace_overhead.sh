#!/usr/bin/env bash
# What `--trace` costs a benchmark: randread 4k QD32 on io_uring (O_DIRECT) on a file on the
# root disk (vda here), PAIRS alternated pairs with and without `--trace` (plain first in odd
# pairs). Prints each pair's IOPS, the median ratio traced/plain of IOPS, and the tracer's own
# cost from the traced records (events/s, its reader thread's CPU per event). Root only.
#
#   benches/trace_overhead.sh                   # 5 pairs x 5 s, 1 GiB
#   PAIRS=5 RUNTIME=10 benches/trace_overhead.sh
#
# Environment: BIN (a built diskdash; default: cargo build --release), BENCH_DIR (default
# /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds), SIZE, TRACE (the traced runs' switch:
# `--trace`, the default, or `--trace=full`). benches/trace_floor.sh gives the kernel's own
# share (the tracepoints on, no reader).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-5}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-1G}
TRACE=${TRACE:---trace}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (tracefs)" >&2; exit 1; }

[ -n "${BIN:-}" ] || cargo build --release --quiet
DD=${BIN:-$PWD/target/release/diskdash}
mkdir -p "$BENCH_DIR"
FILE=$BENCH_DIR/trace.bin
OUT=$BENCH_DIR/trace-results
rm -rf "$OUT"; mkdir -p "$OUT"
if [ ! -f "$FILE" ]; then
  # Data, not holes: a sparse file's reads never reach the disk.
  dd if=/dev/urandom of="$FILE" bs=1M count=$(( $(numfmt --from=iec "$SIZE") >> 20 )) status=none
fi

run() { # name pair extra...
  local name=$1 pair=$2; shift 2
  "$DD" bench "$FILE" --rw randread --bs 4k --iodepth 32 --ioengine io_uring --size "$SIZE" \
      --runtime "${RUNTIME}s" --no-tui --json "$OUT/$name.$pair.json" "$@" >/dev/null 2>&1 || true
}

for p in $(seq 1 "$PAIRS"); do
  echo "pair $p/$PAIRS"
  if [ $((p % 2)) -eq 1 ]; then run plain "$p"; run traced "$p" "$TRACE"
  else run traced "$p" "$TRACE"; run plain "$p"; fi
done

python3 - "$OUT" "$PAIRS" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def load(name, p):
    return json.load(open(f"{out}/{name}.{p}.json"))
ratios, per_event, rates, per_io = [], [], [], []
for p in range(1, pairs + 1):
    plain, traced = load("plain", p), load("traced", p)
    a, b = plain["read"]["iops"], traced["read"]["iops"]
    ratios.append(b / a)
    t = traced["device"]["block_trace"]
    cost = t["tracer"]
    per_event.append(cost["cpu_ns_per_event"])
    rates.append(cost["events_per_s"])
    if t["requests"]:
        per_io.append(cost["events"] / t["requests"])
    print(f"pair {p}: plain {a:9.0f} IOPS  traced {b:9.0f} IOPS  ratio {b / a:.3f}  "
          f"{cost['events_per_s']:9.0f} events/s  {cost['cpu_ns_per_event']:6.0f} ns CPU/event  "
          f"lost {t['lost_events']}  requests {t['requests']} (diskstats {traced['device']['reconciliation']['device_read_ios']})")
print(f"median IOPS ratio traced/plain: {statistics.median(ratios):.3f} "
      f"(range {min(ratios):.3f}-{max(ratios):.3f}; the issue asks >= 0.97)")
print(f"tracer: median {statistics.median(rates):.0f} events/s, "
      f"{statistics.median(per_event):.0f} ns of its reader's CPU per event, "
      f"{statistics.median(per_io) if per_io else 0:.1f} events per request")
PY
