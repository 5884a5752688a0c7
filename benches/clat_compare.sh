#!/usr/bin/env bash
# QD1 completion latency, diskdash fio against fio: io_uring randread 4 KiB O_DIRECT on one file
# (on the disk under BENCH_DIR, vda on the project's VM), the same arguments to both, alternated
# pairs (fio first in odd pairs, diskdash first in even ones). Prints each pair's clat, slat and
# lat means and, over the pairs, the ratio diskdash/fio of the clat mean: median and range
# (target: within 10%).
#
#   benches/clat_compare.sh                  # 5 pairs x 5 s, 256 MiB file
#   PAIRS=9 RUNTIME=10 DISKDASH=target/release/diskdash benches/clat_compare.sh
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds), SIZE,
# ENGINE (default io_uring; libaio too), DISKDASH (a built diskdash; default: cargo build
# --release), FIO (default fio from PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-256M}
ENGINE=${ENGINE:-io_uring}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
FIO=${FIO:-fio}
if [ -z "${DISKDASH:-}" ]; then
  cargo build --release --quiet
  DISKDASH=target/release/diskdash
fi
mkdir -p "$BENCH_DIR"
FILE="$BENCH_DIR/clat.dat"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# Laid out once, by fio, with data; both tools then read it.
[ -s "$FILE" ] || "$FIO" --name=prep --filename="$FILE" --size="$SIZE" --rw=write --bs=1m \
  --direct=1 --output=/dev/null
ARGS=(--name=clat --filename="$FILE" --size="$SIZE" --rw=randread --bs=4k --direct=1
  --ioengine="$ENGINE" --iodepth=1 --runtime="$RUNTIME" --time_based --output-format=json)
fio_run() { "$FIO" "${ARGS[@]}" --output="$OUT/fio.$1.json"; }
dd_run() { "$DISKDASH" fio "${ARGS[@]}" --no-tui --output="$OUT/dd.$1.json" 2>/dev/null; }
for p in $(seq 1 "$PAIRS"); do
  if [ $((p % 2)) = 1 ]; then fio_run "$p"; dd_run "$p"; else dd_run "$p"; fio_run "$p"; fi
done
python3 - "$OUT" "$PAIRS" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def means(path):
    read = json.load(open(path))["jobs"][0]["read"]
    return [read[k]["mean"] / 1000 for k in ("slat_ns", "clat_ns", "lat_ns")]
ratios = []
print("pair  fio slat/clat/lat us       diskdash slat/clat/lat us   clat ratio")
for p in range(1, pairs + 1):
    f, d = means(f"{out}/fio.{p}.json"), means(f"{out}/dd.{p}.json")
    ratios.append(d[1] / f[1])
    print(f"{p:4}  {f[0]:6.2f} {f[1]:7.2f} {f[2]:7.2f}      {d[0]:6.2f} {d[1]:7.2f} {d[2]:7.2f}     {ratios[-1]:.3f}")
print(f"clat mean diskdash/fio: median {statistics.median(ratios):.3f}, "
      f"range {min(ratios):.3f}-{max(ratios):.3f} over {pairs} pairs")
PY
