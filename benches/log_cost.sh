#!/usr/bin/env bash
# What fio's logs cost: the null engine's rate (4k randread, QD1, one worker) without any log,
# for a diskdash built before the logs were written by the workers (BASE) and this one (BIN),
# alternated (BASE first in odd pairs); then this one's `diskdash fio --ioengine=null` without
# logs and with every log of every I/O (`write_bw/iops/lat_log`, no log_avg_msec), alternated.
# Prints each side's IOPS (median, min, max) and the ratios of the medians.
#
#   BASE=/path/to/old/diskdash benches/log_cost.sh        # 5 pairs x 3 s
#   PAIRS=9 RUNTIME=5 BASE=... BIN=target/release/diskdash benches/log_cost.sh
#
# Environment: BIN (default: cargo build --release), BASE (optional: the no-log comparison is
# skipped without it), BENCH_DIR (default /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-5}
RUNTIME=${RUNTIME:-3}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

[ -n "${BIN:-}" ] || cargo build --release --quiet
DD=$(realpath "${BIN:-target/release/diskdash}")
OUT=$BENCH_DIR/log-cost
rm -rf "$OUT"; mkdir -p "$OUT"

bench() { # binary name pair
  "$1" bench --ioengine null --rw randread --bs 4k -q 1 --size 64M --runtime "${RUNTIME}s" \
      --no-tui --json "$OUT/$2.$3.json" >/dev/null 2>&1 || true
}
fio_null() { # name pair extra...
  local name=$1 pair=$2; shift 2
  (cd "$OUT" && rm -f l_*.log && "$DD" fio --name=l --ioengine=null --rw=randread --bs=4k \
      --size=64m --runtime="$RUNTIME" --time_based --output-format=json \
      --output="$name.$pair.json" "$@" >/dev/null 2>&1 || true)
}

for p in $(seq 1 "$PAIRS"); do
  echo "pair $p/$PAIRS" >&2
  if [ -n "${BASE:-}" ]; then
    if [ $((p % 2)) -eq 1 ]; then bench "$BASE" base "$p"; bench "$DD" this "$p"
    else bench "$DD" this "$p"; bench "$BASE" base "$p"; fi
  fi
  logs=(--write_bw_log=l --write_iops_log=l --write_lat_log=l)
  if [ $((p % 2)) -eq 1 ]; then fio_null nolog "$p"; fio_null logged "$p" "${logs[@]}"
  else fio_null logged "$p" "${logs[@]}"; fio_null nolog "$p"; fi
done

python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def iops(path):
    doc = json.load(open(path))
    if "jobs" in doc and "fio version" in doc:
        return sum(j["read"]["iops"] for j in doc["jobs"])
    return doc["read"]["iops"]
seen = {}
for name in ("base", "this", "nolog", "logged"):
    vals = []
    for path in sorted(glob.glob(os.path.join(out, name + ".*.json"))):
        try:
            vals.append(iops(path))
        except Exception as err:
            print(f"{path}: {err}", file=sys.stderr)
    if vals:
        seen[name] = statistics.median(vals)
        print(f"{name:7} IOPS median {seen[name]:12.0f}  min {min(vals):12.0f}  max {max(vals):12.0f}  n={len(vals)}")
if "base" in seen and "this" in seen:
    print(f"no log, this/base: {seen['this'] / seen['base']:.3f}")
if "nolog" in seen and "logged" in seen:
    print(f"every I/O logged / no log: {seen['logged'] / seen['nolog']:.3f}")
PY
