#!/usr/bin/env bash
# The rates of one fio job as fio and `diskdash fio --output-format=json` report them, both
# documents read by the same script (tests/fio_json_reader.py): the job of the `alone` test
# `fio_json` (4k randread QD8 io_uring direct on a 32 MiB written file), fio, diskdash,
# diskdash, fio per attempt (drift cancels), each tool's two runs averaged. Prints each
# attempt's iops and bw of both tools and their ratio, and exits 1 unless one attempt has every
# rate within TOLERANCE of fio's (the bound that test held until 2026-11, when the rates' check
# left the suite for this script: a rate of a shared disk is a statistic, not a key).
#
#   benches/fio_json_rates.sh                         # 3 attempts x 4 runs x 2 s, 15%
#   ATTEMPTS=5 RUNTIME=5 TOLERANCE=10 benches/fio_json_rates.sh
#
# Environment: DISKDASH/BIN (a built diskdash; default: cargo build --release), BENCH_DIR
# (default /var/tmp/diskdash-bench), ATTEMPTS, RUNTIME (seconds), TOLERANCE (percent).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

ATTEMPTS=${ATTEMPTS:-3}
RUNTIME=${RUNTIME:-2}
TOLERANCE=${TOLERANCE:-15}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
READER=$PWD/tests/fio_json_reader.py

if ! command -v fio >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
command -v python3 >/dev/null || { echo "needs python3 to read the JSON documents" >&2; exit 1; }
if [ -z "${DISKDASH:-${BIN:-}}" ]; then
  cargo build --release --quiet
fi
DD=$(realpath "${DISKDASH:-${BIN:-target/release/diskdash}}")

mkdir -p "$BENCH_DIR"
OUT=$(mktemp -d "$BENCH_DIR/fio-json-rates.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
FILE=$OUT/data
# Written, not sparse: direct reads of holes would not reach the disk.
head -c 32M /dev/zero | tr '\0' 'Z' >"$FILE"
JOB=(--name=r --rw=randread --bs=4k --iodepth=8 --ioengine=io_uring --direct=1
     --runtime="$RUNTIME" --time_based --size=32M --output-format=json --filename="$FILE")

# run NAME PROGRAM...: the job's JSON document read by the script into $OUT/NAME; the
# program's stderr (diskdash's status lines) is shown only when it fails.
run() {
  local name=$1
  shift
  "$@" "${JOB[@]}" 2>"$OUT/$name.err" >"$OUT/$name.json" || { cat "$OUT/$name.err" >&2; exit 1; }
  python3 "$READER" "$OUT/$name.json" >"$OUT/$name"
}
for a in $(seq 1 "$ATTEMPTS"); do
  run "$a.fio.a" fio
  run "$a.dd.a" "$DD" fio
  run "$a.dd.b" "$DD" fio
  run "$a.fio.b" fio
done

python3 - "$OUT" "$ATTEMPTS" "$TOLERANCE" <<'PY'
import sys
out, attempts, tolerance = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 100

def lines(path):
    # jobname rw iops bw_KiB/s runtime_ms clat_mean_us p99_us
    return {tuple(f[:2]): [float(x) for x in f[2:4]] for f in (l.split() for l in open(path))}

def mean(a, b):
    return {k: [(x + y) / 2 for x, y in zip(a[k], b[k])] for k in a}

agreed = 0
for n in range(1, attempts + 1):
    fio = mean(lines(f"{out}/{n}.fio.a"), lines(f"{out}/{n}.fio.b"))
    ours = mean(lines(f"{out}/{n}.dd.a"), lines(f"{out}/{n}.dd.b"))
    within = True
    for key, theirs in fio.items():
        mine = ours[key]
        cells = []
        for i, name in enumerate(("iops", "bw KiB/s")):
            ratio = mine[i] / theirs[i] if theirs[i] > 0 else float("inf")
            within &= abs(ratio - 1) <= tolerance
            cells.append(f"{name} fio {theirs[i]:.0f} diskdash {mine[i]:.0f} ({ratio:.3f})")
        print(f"attempt {n}: {' '.join(key)}: " + ", ".join(cells))
    agreed += within
print(f"{agreed} of {attempts} attempts with every rate within {tolerance:.0%} of fio's")
sys.exit(0 if agreed else 1)
PY
